import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Requester, UpstashRequest } from "@upstash/redis";
import pino from "pino";
import { heartbeatSecret } from "../../src/protocol/derive-key";
import { signatureHeaders } from "../../src/protocol/signing";
import type { AppContext } from "../../src/server/app-context";
import { createAppContext } from "../../src/server/compose/context";
import { sidecarClient } from "../../src/server/door/sidecar-client";
import { handleHeartbeatRequest } from "../../src/server/http/heartbeat-handler";
import { requesterConnection } from "../../src/server/store/redis/client";
import { RedisStore } from "../../src/server/store/redis/store";
import { TcpRequester } from "../../src/server/store/redis/tcp-requester";
import { SqliteStore } from "../../src/server/store/sqlite/store";
import type { Store } from "../../src/server/store/types";
import { freePort } from "./free-port";

/**
 * What every lifecycle step costs in store commands, counted on the real adapters (issue 18:
 * Upstash bills per command, so docs/store.md's cost table is generated from these counts).
 * redis: every request the client sends (one round trip) and every command in it (a pipeline
 * or transaction carries several); sqlite: every SQL statement better-sqlite3 runs.
 */

export interface Cost {
  /** redis: requests sent; sqlite: statements run (it has no round trips). */
  trips: number;
  /** redis: commands sent, which Upstash bills; sqlite: statements. */
  commands: number;
}

export interface Counter {
  read(): Cost;
}

/** Counts requests and the commands in them on the way to the real requester. */
export class CountingRequester implements Requester {
  requests = 0;
  commands = 0;
  constructor(private readonly inner: Requester) {}
  request: Requester["request"] = (req: UpstashRequest) => {
    this.requests++;
    const batch = (req.path?.length ?? 0) > 0;
    this.commands += batch && Array.isArray(req.body) ? req.body.length : 1;
    return this.inner.request(req);
  };
}

export interface CountedApp {
  ctx: AppContext;
  counter: Counter;
  /**
   * Prepares one signed heartbeat from the current sandbox (reading the state to find it, which
   * is not part of the heartbeat's cost); the returned function sends it through the production
   * handler and answers the action.
   */
  heartbeat(): Promise<() => Promise<string>>;
  close(): Promise<void>;
}

/**
 * The app as the server builds it, on `adapter`, with a counter on the store. The sidecar's own
 * heartbeats go to a closed port (they would add store traffic at random moments), and the
 * lock lease is long enough that no renewal falls inside a measured step: both are counted
 * separately (a heartbeat row; a renewal is one command per third of a lease).
 */
export async function countedApp(adapter: "sqlite" | "redis", redisUrl?: string) {
  const dir = mkdtempSync(join(tmpdir(), "clawrun-cost-"));
  writeFileSync(join(dir, "clawrun.json"), "{}");
  const master = randomBytes(24).toString("hex");
  let counter: Counter;
  let store: Store;
  if (adapter === "sqlite") {
    let statements = 0;
    store = new SqliteStore(join(dir, "cost.db"), {
      instance: "cost",
      onStatement: () => {
        statements++;
      },
    });
    counter = { read: () => ({ trips: statements, commands: statements }) };
  } else {
    const tcp = new TcpRequester(redisUrl as string);
    const counting = new CountingRequester(tcp);
    store = new RedisStore(
      requesterConnection(counting, "tcp", () => tcp.close()),
      { instance: `cost-${randomBytes(4).toString("hex")}` },
    );
    counter = { read: () => ({ trips: counting.requests, commands: counting.commands }) };
  }
  const ctx = await createAppContext({
    source: {
      PATH: process.env.PATH,
      CLAWRUN_STATE_DIR: dir,
      CLAWRUN_CONFIG: join(dir, "clawrun.json"),
      CLAWRUN_PUBLIC_URL: `http://127.0.0.1:${await freePort()}`,
      CLAWRUN_SECRET: master,
      ADMIN_SECRET: randomBytes(24).toString("hex"),
      CRON_SECRET: randomBytes(24).toString("hex"),
      CLAWRUN_WEBHOOK_SECRET: randomBytes(24).toString("hex"),
      CLAWRUN_LOCAL_TICK: "0",
      CLAWRUN_TIMINGS: JSON.stringify({ lockLeaseMs: 600_000 }),
    },
    logger: pino({ level: "silent" }),
    // The app's own sqlite store is never opened: this one replaces it.
    wrapStore: () => store,
  });
  const heartbeat = async () => {
    const state = (await ctx.store.state.get())?.value;
    const sandbox = await ctx.provider.get(state?.sandboxId as string);
    // The generation the real sidecar reports (restore attestation), as its heartbeats carry it.
    const { generation } = await sidecarClient(sandbox, master).health();
    const body = JSON.stringify({
      sandboxId: sandbox.id,
      lastChangedAt: Date.now(),
      sandboxCreatedAt: state?.sandboxCreatedAt,
      root: sandbox.root,
      daemonStatus: "running",
      daemonRestarts: 0,
      generation,
    });
    const secret = heartbeatSecret(master, sandbox.id);
    const request = new Request("http://clawrun/api/heartbeat", {
      method: "POST",
      body,
      headers: signatureHeaders(secret, body),
    });
    return async () => {
      const { response, followUp } = await handleHeartbeatRequest(request, ctx);
      await followUp?.();
      const answer = (await response.json()) as { action?: string };
      return String(answer.action);
    };
  };
  const close = async () => {
    for (const s of await ctx.provider.list())
      await (await ctx.provider.get(s.id)).stop().catch(() => undefined);
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { ctx, counter, heartbeat, close } satisfies CountedApp;
}

/** The cost of `step`: the counter's difference across it. */
export async function costOf(counter: Counter, step: () => Promise<unknown>): Promise<Cost> {
  const before = counter.read();
  await step();
  const after = counter.read();
  return { trips: after.trips - before.trips, commands: after.commands - before.commands };
}
