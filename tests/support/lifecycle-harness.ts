import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { LIFECYCLE, type LifecycleTimings } from "../../src/config/constants";
import type { ClawrunConfig } from "../../src/config/schema";
import type { SidecarTimings } from "../../src/protocol/sidecar-config";
import { EchoAgent } from "../../src/server/agents/echo/echo-agent";
import type { Agent } from "../../src/server/agents/types";
import { parseClawrunConfig } from "../../src/server/config-schema";
import type { AppContext } from "../../src/server/context";
import type { LifecycleEvent } from "../../src/server/domain/events";
import type { InstanceState } from "../../src/server/domain/instance-state";
import type { WakeHook } from "../../src/server/domain/wake-hook";
import { handleHeartbeatRequest } from "../../src/server/http/heartbeat-handler";
import { LocalProvider } from "../../src/server/providers/local/local-provider";
import type { SandboxProvider } from "../../src/server/providers/types";
import { SandboxLifecycleManager } from "../../src/server/sandbox/manager";
import { CountBasedRetention } from "../../src/server/sandbox/retention";
import { SqliteStore } from "../../src/server/store/sqlite-store";
import { freePort } from "./free-port";

/** A wake hook that records calls, so tests can see hooks registered and torn down. */
export class RecordingHook implements WakeHook {
  readonly channel = "test";
  readonly calls: ("register" | "teardown")[] = [];
  async register() {
    this.calls.push("register");
  }
  async teardown() {
    this.calls.push("teardown");
  }
}

export interface LifecycleHarness {
  manager: SandboxLifecycleManager;
  /** What another process needs to build an equivalent manager (see tests/fixtures). */
  params: { stateDir: string; masterSecret: string; publicUrl: string; timings: LifecycleTimings };
  /** Another manager on the same store file and state dir (a second server instance). */
  newManager(): SandboxLifecycleManager;
  store: SqliteStore;
  provider: SandboxProvider;
  stateDir: string;
  hook: RecordingHook;
  /** The instance state now. */
  status(): Promise<InstanceState>;
  /** Lifecycle events of one type, newest first. */
  events(type: string): Promise<LifecycleEvent[]>;
  /** Heartbeat responses, in order, as the sidecar received them. */
  heartbeats: { sandboxId: string; status: number; action?: string }[];
  /** While false the parent "is down": heartbeats get connection errors. */
  setParentUp(up: boolean): Promise<void>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  config?: Record<string, unknown>;
  timings?: Partial<LifecycleTimings>;
  sidecarTimings?: Partial<SidecarTimings>;
  agent?: Agent;
  wrapProvider?: (p: SandboxProvider) => SandboxProvider;
}

/**
 * The lifecycle with real parts and short timings: a real sqlite file, the real local
 * provider and echo agent, the real sidecar posting heartbeats to a real HTTP endpoint that
 * runs the production heartbeat handler — only the Next.js server around it is left out.
 */
export async function lifecycleHarness(o: HarnessOptions = {}): Promise<LifecycleHarness> {
  const stateDir = mkdtempSync(join(tmpdir(), "clawrun-lifecycle-"));
  const logger = pino({ level: process.env.CLAWRUN_TEST_LOG_LEVEL ?? "silent" });
  const config: ClawrunConfig = parseClawrunConfig(o.config ?? {});
  const timings: LifecycleTimings = { ...LIFECYCLE, heartbeatIntervalMs: 300, ...o.timings };
  const masterSecret = randomBytes(24).toString("hex");
  const stores: SqliteStore[] = [];
  const openStore = () => {
    const s = new SqliteStore(join(stateDir, "store.db"), { instance: config.instance.name });
    stores.push(s);
    return s;
  };
  const baseProvider = new LocalProvider({ stateDir, logger });
  const provider = o.wrapProvider ? o.wrapProvider(baseProvider) : baseProvider;
  const hook = new RecordingHook();
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const agent = o.agent ?? new EchoAgent();
  const newManager = () =>
    new SandboxLifecycleManager({
      store: openStore(),
      provider,
      agent,
      hooks: [hook],
      retention: new CountBasedRetention(timings.snapshotsKept),
      logger,
      config,
      timings,
      masterSecret,
      publicUrl,
      clock: Date.now,
      channels: new Map(),
      sidecarTimings: o.sidecarTimings,
    });
  const manager = newManager();
  const store = stores[0] as SqliteStore;
  const ctx = {
    secrets: { secrets: { CLAWRUN_SECRET: masterSecret } },
    manager,
    logger,
  } as unknown as AppContext;
  const heartbeats: LifecycleHarness["heartbeats"] = [];
  const followUps = new Set<Promise<void>>();

  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const request = new Request(`${publicUrl}${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: body.length ? body : undefined,
    });
    const { response, followUp } = await handleHeartbeatRequest(request, ctx);
    const text = await response.text();
    const sandboxId = String(
      (JSON.parse(body.toString() || "{}") as { sandboxId?: string }).sandboxId,
    );
    heartbeats.push({
      sandboxId,
      status: response.status,
      action: response.ok ? JSON.parse(text).action : undefined,
    });
    res.writeHead(response.status, { "content-type": "application/json" }).end(text);
    if (followUp) {
      const p = followUp().catch((err: unknown) =>
        logger.error({ err: String(err) }, "follow-up failed"),
      );
      followUps.add(p);
      void p.finally(() => followUps.delete(p));
    }
  });
  const listen = () => new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  await listen();

  return {
    manager,
    params: { stateDir, masterSecret, publicUrl, timings },
    newManager,
    status: async () => (await manager.getState()).value,
    events: async (type) => (await store.listEvents(500)).filter((e) => e.type === type),
    store,
    provider,
    stateDir,
    hook,
    heartbeats,
    async setParentUp(up) {
      if (up && !server.listening) await listen();
      if (!up && server.listening) await new Promise<void>((r) => server.close(() => r()));
    },
    async stop() {
      if (server.listening) {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
      }
      await Promise.allSettled([...followUps]);
      for (const s of await baseProvider.list())
        await (await baseProvider.get(s.id)).stop().catch(() => undefined);
      for (const s of stores) await s.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
