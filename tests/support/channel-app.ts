import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import type { AppContext } from "../../src/server/app-context";
import type { Channel } from "../../src/server/channels/types";
import { createAppContext } from "../../src/server/compose/context";

/**
 * Builds the app through the real composition root (real sqlite store in a temp dir, agent
 * asleep) with one channel configured, and hands out that channel as the server would.
 */
export async function channelApp(o: {
  name: string;
  config: Record<string, unknown>;
  env: Record<string, string>;
  clock?: () => number;
  /** This deployment's public URL (default http://127.0.0.1:9, where nothing listens). */
  publicUrl?: string;
  /** Another app's state dir: a second process sharing its store (the caller removes it). */
  dir?: string;
}): Promise<{ ctx: AppContext; channel: Channel; dir: string; close(): Promise<void> }> {
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), `clawrun-${o.name}-`));
  writeFileSync(join(dir, "clawrun.json"), JSON.stringify({ channels: { [o.name]: o.config } }));
  const ctx = await createAppContext({
    source: {
      PATH: process.env.PATH,
      CLAWRUN_STATE_DIR: dir,
      CLAWRUN_CONFIG: join(dir, "clawrun.json"),
      CLAWRUN_PUBLIC_URL: o.publicUrl ?? "http://127.0.0.1:9",
      CLAWRUN_LOCAL_TICK: "0",
      ...o.env,
    },
    logger: pino({ level: "silent" }),
    ...(o.clock ? { clock: o.clock } : {}),
  });
  const channel = ctx.channels.get(o.name);
  if (!channel) throw new Error(`channel ${o.name} was not built`);
  return {
    ctx,
    channel,
    dir,
    close: async () => {
      await ctx.close();
      if (!o.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
