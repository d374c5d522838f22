import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import type { ChannelDeps } from "../../../src/server/channels/types";
import { channelKv } from "../../../src/server/compose/modules";
import { SqliteStore } from "../../../src/server/store/sqlite/store";

/** What the composition root gives a channel, over a real sqlite store in a temp dir. */
export function channelDeps<Env>(
  channel: string,
  env: Env,
  publicUrl = "https://clawrun.example",
): { deps: ChannelDeps<Env>; store: SqliteStore; close(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), `clawrun-${channel}-`));
  const store = new SqliteStore(join(dir, "store.db"), { instance: "test" });
  return {
    deps: {
      env,
      publicUrl,
      kv: channelKv(store.kv, channel),
      clock: Date.now,
      logger: pino({ level: "silent" }),
    },
    store,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
