import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import type { LifecycleTimings } from "../../src/config/constants";
import type { SidecarTimings } from "../../src/protocol/sidecar-config";
import type { Agent } from "../../src/server/agents/types";
import type { AppContext } from "../../src/server/app-context";
import { createAppContext } from "../../src/server/compose/context";
import type { LifecycleEvent } from "../../src/server/domain/events";
import type { InstanceState } from "../../src/server/domain/instance-state";
import type { WakeHook } from "../../src/server/domain/wake-hook";
import { errorResponse } from "../../src/server/http/errors";
import { handleHeartbeatRequest } from "../../src/server/http/heartbeat-handler";
import { handleModelRoute } from "../../src/server/http/model-handler";
import { handleWebhookRequest } from "../../src/server/http/webhook-handler";
import type { ApiShape } from "../../src/server/model-gateway/refusal";
import { LocalProvider } from "../../src/server/providers/local/local-provider";
import type { SandboxProvider } from "../../src/server/providers/types";
import { LIFECYCLE_LOCK } from "../../src/server/sandbox/lifecycle-lock";
import type { SandboxLifecycleManager } from "../../src/server/sandbox/manager";
import type { Store } from "../../src/server/store/types";
import { freePort, waitFor } from "./free-port";

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
  /** The app as the server builds it (through the real composition root). */
  ctx: AppContext;
  manager: SandboxLifecycleManager;
  /** What another process needs to build an equivalent app (see tests/fixtures). */
  params: { source: Record<string, string> };
  /** Another app on the same store file and state dir (a second server instance). */
  newManager(): Promise<SandboxLifecycleManager>;
  /** The whole app of another server instance on the same store file and state dir. */
  newContext(): Promise<AppContext>;
  store: Store;
  provider: SandboxProvider;
  stateDir: string;
  hook: RecordingHook;
  /** The instance state now. */
  status(): Promise<InstanceState>;
  /** Lifecycle events of one type, newest first. */
  events(type: string): Promise<LifecycleEvent[]>;
  /** Heartbeat responses, in order, as the sidecar received them. */
  heartbeats: { sandboxId: string; status: number; action?: string }[];
  /** The app's base URL: POST /api/webhooks/<channel> runs the production webhook handler. */
  url: string;
  /** Signed with the generic channel's secret, as a platform integration sends them. */
  webhookSecret: string;
  /** Resolves once the work handlers started after their responses (wakes, sleeps) is done. */
  settled(): Promise<void>;
  /**
   * Resolves once no one holds the lifecycle lock, e.g. a killed server's lease has run out
   * (a probe takes the lock and gives it back at once): a restart that comes up after that
   * finds the lock free, as a real restart, slower than a lease, would.
   */
  lockFree(timeoutMs?: number): Promise<void>;
  /** While false the parent "is down": heartbeats get connection errors. */
  setParentUp(up: boolean): Promise<void>;
  stop(): Promise<void>;
}

const MODEL_ROUTES: Record<string, { shape: ApiShape; path: string }> = {
  "/api/model/v1/chat/completions": { shape: "openai", path: "/chat/completions" },
  "/api/model/v1/messages": { shape: "anthropic", path: "/messages" },
};

export interface HarnessOptions {
  config?: Record<string, unknown>;
  timings?: Partial<LifecycleTimings>;
  sidecarTimings?: Partial<SidecarTimings>;
  /** Another agent object, or one made for the harness's public URL (e.g. its model gateway). */
  agent?: Agent | ((publicUrl: string) => Agent);
  wrapProvider?: (p: SandboxProvider) => SandboxProvider;
  /** Wraps the store of the harness's own app (e.g. tests/support/faulty-store.ts). */
  wrapStore?: (s: Store) => Store;
  /** More environment for the app (e.g. REDIS_URL for the redis store, or a Vercel Sandbox API
   * emulator's credentials). */
  env?: Record<string, string>;
}

/**
 * The lifecycle with real parts and short timings, built by the real composition root: a
 * real sqlite file, the real local provider and agent, the real sidecar posting heartbeats to
 * a real HTTP endpoint that runs the production heartbeat handler — only the Next.js server
 * around it is left out.
 */
export async function lifecycleHarness(o: HarnessOptions = {}): Promise<LifecycleHarness> {
  const stateDir = mkdtempSync(join(tmpdir(), "clawrun-lifecycle-"));
  const logger = pino({ level: process.env.CLAWRUN_TEST_LOG_LEVEL ?? "silent" });
  const configPath = join(stateDir, "clawrun.json");
  writeFileSync(configPath, JSON.stringify(o.config ?? {}));
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const secret = () => randomBytes(24).toString("hex");
  const source: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    CLAWRUN_STATE_DIR: stateDir,
    CLAWRUN_CONFIG: configPath,
    CLAWRUN_PUBLIC_URL: publicUrl,
    CLAWRUN_LOCAL_TICK: "0",
    CLAWRUN_SECRET: secret(),
    ADMIN_SECRET: secret(),
    CRON_SECRET: secret(),
    CLAWRUN_WEBHOOK_SECRET: secret(),
    CLAWRUN_TIMINGS: JSON.stringify({ heartbeatIntervalMs: 300, ...o.timings }),
    ...o.env,
  };
  const hook = new RecordingHook();
  const contexts: AppContext[] = [];
  const build = async (first = false) => {
    const c = await createAppContext({
      wrapStore: first ? o.wrapStore : undefined,
      source,
      logger,
      hooks: [hook],
      agent: typeof o.agent === "function" ? o.agent(publicUrl) : o.agent,
      wrapProvider: o.wrapProvider,
      sidecarTimings: o.sidecarTimings,
    });
    contexts.push(c);
    return c;
  };
  const ctx = await build(true);
  const { manager, store, provider } = ctx;
  const baseProvider = new LocalProvider({ stateDir, logger });
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
    // As the route wrapper does: errors the handler throws are mapped in one place.
    // The model gateway's call routes, as app/api/model/v1 serves them.
    const modelRoute = MODEL_ROUTES[req.url ?? ""];
    if (modelRoute) {
      const answer = await handleModelRoute(request, ctx, modelRoute.shape, modelRoute.path);
      res
        .writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "" })
        .end(Buffer.from(await answer.arrayBuffer()));
      return;
    }
    const webhook = /^\/api\/webhooks\/([^/?]+)/.exec(req.url ?? "")?.[1];
    const result = await (webhook
      ? handleWebhookRequest(request, webhook, ctx)
      : handleHeartbeatRequest(request, ctx)
    ).catch((err: unknown) => ({ response: errorResponse(err, null), followUp: null }));
    // A handler answers a Response, or one with work to do after it (route.ts, RouteResult).
    const { response, followUp } =
      result instanceof Response ? { response: result, followUp: null } : result;
    const text = await response.text();
    if (webhook) {
      res.writeHead(response.status, { "content-type": "application/json" }).end(text);
      if (followUp) track(followUp);
      return;
    }
    const sandboxId = String(
      (JSON.parse(body.toString() || "{}") as { sandboxId?: string }).sandboxId,
    );
    heartbeats.push({
      sandboxId,
      status: response.status,
      action: response.ok ? JSON.parse(text).action : undefined,
    });
    res.writeHead(response.status, { "content-type": "application/json" }).end(text);
    if (followUp) track(followUp);
  });
  /** Runs a handler's after-the-response work as the route does (after()), kept for stop(). */
  function track(followUp: () => Promise<void>) {
    const p = followUp().catch((err: unknown) =>
      logger.error({ err: String(err) }, "follow-up failed"),
    );
    followUps.add(p);
    void p.finally(() => followUps.delete(p));
  }
  const listen = () => new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  await listen();

  return {
    ctx,
    manager,
    params: { source },
    newManager: async () => (await build()).manager,
    newContext: () => build(),
    status: async () => (await manager.getState()).value,
    events: async (type) => (await store.events.list(500)).filter((e) => e.type === type),
    store,
    provider,
    stateDir,
    hook,
    heartbeats,
    async settled() {
      while (followUps.size > 0) await Promise.allSettled([...followUps]);
    },
    async lockFree(timeoutMs = 30_000) {
      const probe = `lock-probe-${randomBytes(6).toString("hex")}`;
      await waitFor(
        "the lifecycle lock to be free",
        async () => {
          const grant = await store.locks.acquire(LIFECYCLE_LOCK, probe, 1_000);
          if (grant) await store.locks.release(LIFECYCLE_LOCK, probe);
          return grant !== null;
        },
        timeoutMs,
        20,
      );
    },
    url: publicUrl,
    webhookSecret: source.CLAWRUN_WEBHOOK_SECRET as string,
    async setParentUp(up) {
      if (up && !server.listening) await listen();
      if (!up && server.listening) {
        // A "down" parent also drops the sidecar's kept-alive connections (close() alone
        // would wait for them to go idle and time out, about a minute).
        const closed = new Promise<void>((r) => server.close(() => r()));
        server.closeAllConnections();
        await closed;
      }
    },
    async stop() {
      if (server.listening) {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
      }
      await Promise.allSettled([...followUps]);
      for (const s of await baseProvider.list())
        await (await baseProvider.get(s.id)).stop().catch(() => undefined);
      for (const c of contexts) await c.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
