import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CommandRunner } from "./commands";
import { EmulatedError, type Handler, Router, sendError, type UnknownRequest } from "./http";
import { proxyToSandbox, SANDBOX_PREFIX } from "./proxy";
import { commandRoutes } from "./routes-commands";
import { fileRoutes } from "./routes-files";
import { sandboxRoutes } from "./routes-sandboxes";
import { sessionRoutes } from "./routes-sessions";
import { snapshotRoutes } from "./routes-snapshots";
import { EmulatedService } from "./service";

/**
 * A Vercel Sandbox API emulator for tests (docs/vercel-sandbox.md, "Emulator"): serves the
 * routes the pinned @vercel/sandbox calls, with request and answer shapes from the SDK, and
 * runs every session as a real local-provider sandbox on this machine. Requests it does not
 * know are answered with an error and recorded in `unknownRequests`. What it does not
 * emulate: egress network policies (recorded, not enforced), git/tarball sources, drives,
 * sudo, per-domain policy rules, and measured CPU time.
 */

export interface EmulatorCredentials {
  token: string;
  teamId: string;
  projectId: string;
}

export interface VercelSandboxEmulator {
  /** Base URL for CLAWRUN_VERCEL_API_URL. */
  url: string;
  credentials: EmulatorCredentials;
  /** The provider's environment for this emulator (token triple + API URL). */
  env: Record<string, string>;
  service: EmulatedService;
  /** Every API request, in order (method, path, query). */
  requests: { method: string; path: string; query: string }[];
  unknownRequests: UnknownRequest[];
  /** Answers that failed the SDK's own schema (emulator bugs). */
  faults: string[];
  /** Extra tokens accepted (e.g. an OIDC token naming the same team). */
  acceptToken(token: string, teamId: string): void;
  /** CLAWRUN_PORT_<n> of a sandbox's current session: the host ports its processes use. */
  portEnv(sandboxName: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export interface EmulatorOptions {
  /** The plan's cap on a session's timeout. Default: Hobby's 45 minutes. */
  maxTimeoutMs?: number;
  /** Loopback port to listen on. Default 0: a free one (tests); `npm run emulator` can fix it. */
  port?: number;
}

export async function startVercelSandboxEmulator(
  opts: EmulatorOptions = {},
): Promise<VercelSandboxEmulator> {
  const dir = mkdtempSync(join(tmpdir(), "clawrun-vercel-emulator-"));
  const credentials: EmulatorCredentials = {
    token: `emulated-token-${process.pid}`,
    teamId: "team_emulated",
    projectId: "prj_emulated",
  };
  const tokens = new Map([[credentials.token, credentials.teamId]]);
  const service = new EmulatedService({
    stateDir: join(dir, "local"),
    projectId: credentials.projectId,
    maxTimeoutMs: opts.maxTimeoutMs ?? 45 * 60_000,
  });
  const runner = new CommandRunner(service, dir);
  const router = new Router();
  const requests: VercelSandboxEmulator["requests"] = [];

  /** Vercel answers 403 to a missing or wrong token; the SDK always sends teamId. */
  const guard =
    (handler: Handler): Handler =>
    async (ctx) => {
      const auth = ctx.req.headers.authorization ?? "";
      const team = tokens.get(auth.replace(/^Bearer /, ""));
      if (!auth.startsWith("Bearer ") || team === undefined) {
        throw new EmulatedError(403, "forbidden", "Not authorized");
      }
      if (ctx.url.searchParams.get("teamId") !== team) {
        throw new EmulatedError(403, "forbidden", "the token does not grant access to this team");
      }
      await handler(ctx);
    };

  // Specific paths before "/v2/sandboxes/:name".
  snapshotRoutes(router, service, guard);
  router.add("GET", "/v2/sandboxes/sessions", async (ctx) => ctx.unknown("sessions listing"));
  sessionRoutes(router, service, guard);
  commandRoutes(router, service, runner, guard);
  fileRoutes(router, service, guard);
  sandboxRoutes(router, service, guard);

  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith(SANDBOX_PREFIX)) return proxyToSandbox(req, res, service);
    const url = new URL(req.url ?? "/", "http://emulator");
    requests.push({ method: req.method ?? "?", path: url.pathname, query: url.search });
    router.handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, new EmulatedError(400, "emulator_fault", String(err)));
    });
  });
  // A fixed port may be taken: reject (the caller says so) instead of an unhandled 'error'.
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", resolve);
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;

  return {
    url,
    credentials,
    env: {
      VERCEL_TOKEN: credentials.token,
      VERCEL_TEAM_ID: credentials.teamId,
      VERCEL_PROJECT_ID: credentials.projectId,
      CLAWRUN_VERCEL_API_URL: url,
    },
    service,
    requests,
    unknownRequests: router.unknown,
    faults: router.faults,
    acceptToken: (token, teamId) => void tokens.set(token, teamId),
    portEnv: async (name) => {
      const sandbox = service.sandbox(name);
      return { ...service.backing(sandbox.currentSessionId).baseEnv };
    },
    close: async () => {
      await service.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
