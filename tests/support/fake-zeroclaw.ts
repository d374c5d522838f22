import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { dirname } from "node:path";
import { freePort } from "./free-port";

/**
 * A local stand-in for ZeroClaw's gateway (its release binary cannot be downloaded here),
 * implementing the documented endpoints ClawRun uses (docs/agents/zeroclaw.md):
 *   GET  /health   -> { status: "ok", paired, require_pairing, runtime }
 *   POST /webhook  -> { response, model } with `Authorization: Bearer <token>` checked against
 *                     the paired token hashes, `X-Idempotency-Key` de-duplication,
 *                     `X-Session-Id` (kept only when it is [A-Za-z0-9._-]{1,128}, as ZeroClaw
 *                     does), and an optional `?agent=<alias>` that must name a configured agent.
 * Replies are deterministic and show what the session has heard, so a test can see
 * conversation memory. Every request is recorded.
 */

export interface FakeZeroClawOptions {
  /** Hex SHA-256 hashes of accepted bearer tokens (what `[gateway] paired_tokens` holds). */
  pairedTokenHashes: string[];
  /** Configured agent aliases (`[agents.<alias>]`). */
  agents?: string[];
  model?: string;
  /** Listen here (default: a free loopback port). */
  port?: number;
  host?: string;
  /**
   * Keep the sessions' memory and the seen idempotency keys in this JSON file (loaded at start,
   * written after each message), as ZeroClaw keeps them under its config dir: a stand-in
   * daemon restored from a snapshot remembers its conversations.
   */
  stateFile?: string;
  /**
   * For the first N ms, /health says `paired: false` (a gateway that listens before it has
   * loaded its tokens): lets a test see ClawRun wait for readiness, not just an open port.
   */
  unpairedForMs?: number;
  /**
   * Asks the configured model provider for each message (as ZeroClaw would); its answer is
   * added to the reply as ` model-said=[...]` (a refusal as its status and error).
   */
  askModel?: (message: string) => Promise<string>;
}

export interface FakeZeroClawRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface FakeZeroClaw {
  baseUrl: string;
  requests: FakeZeroClawRequest[];
  /** Messages the agent actually ran (duplicates and refusals excluded). */
  processed(): { session: string | null; agent: string | null; message: string }[];
  close(): Promise<void>;
}

const SESSION_ID = /^[A-Za-z0-9._-]{1,128}$/;

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

/** Pure: the deterministic reply after `history` (this session's messages, newest last). */
export function fakeZeroClawReply(session: string | null, history: readonly string[]): string {
  return `fake-zeroclaw session=${session ?? "none"} turn=${history.length} heard=${JSON.stringify(history)}`;
}

export async function startFakeZeroClaw(opts: FakeZeroClawOptions): Promise<FakeZeroClaw> {
  const requests: FakeZeroClawRequest[] = [];
  const processed: { session: string | null; agent: string | null; message: string }[] = [];
  const seenKeys = new Set<string>();
  const sessions = new Map<string, string[]>();
  const agents = opts.agents ?? ["clawrun"];
  const model = opts.model ?? "fake-model";
  const hashes = new Set(opts.pairedTokenHashes);
  const startedAt = Date.now();
  if (opts.stateFile) {
    try {
      const saved = JSON.parse(readFileSync(opts.stateFile, "utf8")) as {
        sessions: [string, string[]][];
        keys: string[];
      };
      for (const [id, history] of saved.sessions) sessions.set(id, history);
      for (const key of saved.keys) seenKeys.add(key);
    } catch {
      // No saved state yet: a first start.
    }
  }
  const save = () => {
    if (!opts.stateFile) return;
    mkdirSync(dirname(opts.stateFile), { recursive: true });
    const body = JSON.stringify({ sessions: [...sessions], keys: [...seenKeys] });
    writeFileSync(`${opts.stateFile}.tmp`, body);
    renameSync(`${opts.stateFile}.tmp`, opts.stateFile);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => send(res, 500, { error: err.message }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const body = await readBody(req);
    requests.push({
      method: req.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...req.headers },
      body,
    });
    if (req.method === "GET" && url.pathname === "/health") {
      return send(res, 200, {
        status: "ok",
        paired: hashes.size > 0 && Date.now() - startedAt >= (opts.unpairedForMs ?? 0),
        require_pairing: true,
        runtime: { fake: true },
      });
    }
    if (req.method === "POST" && url.pathname === "/webhook") return webhook(req, url, body, res);
    send(res, 404, { error: `no route for ${req.method} ${url.pathname}` });
  }

  async function webhook(req: IncomingMessage, url: URL, raw: string, res: ServerResponse) {
    const auth = req.headers.authorization ?? "";
    const token = auth.startsWith("Bearer ") ? auth.slice("Bearer ".length) : "";
    if (!hashes.has(createHash("sha256").update(token).digest("hex"))) {
      return send(res, 401, {
        error: "Unauthorized — pair first via POST /pair, then send Authorization: Bearer <token>",
      });
    }
    let message: unknown;
    try {
      message = (JSON.parse(raw) as { message?: unknown }).message;
    } catch {
      message = undefined;
    }
    if (typeof message !== "string") {
      return send(res, 400, { error: 'Invalid JSON body. Expected: {"message": "..."}' });
    }
    const agent = url.searchParams.get("agent")?.trim() || null;
    if (agent !== null && !agents.includes(agent)) {
      return send(res, 400, {
        error: `Unknown agent \`${agent}\` — no [agents.${agent}] entry configured.`,
      });
    }
    const key = String(req.headers["x-idempotency-key"] ?? "").trim();
    if (key !== "") {
      if (seenKeys.has(key)) {
        return send(res, 200, {
          status: "duplicate",
          idempotent: true,
          message: "Request already processed for this idempotency key",
        });
      }
      seenKeys.add(key);
    }
    const rawSession = String(req.headers["x-session-id"] ?? "").trim();
    const session = SESSION_ID.test(rawSession) ? rawSession : null;
    const history = session === null ? [] : (sessions.get(session) ?? []);
    history.push(message);
    if (session !== null) sessions.set(session, history);
    processed.push({ session, agent, message });
    save();
    const said = opts.askModel ? ` model-said=[${await opts.askModel(message)}]` : "";
    send(res, 200, { response: `${fakeZeroClawReply(session, history)}${said}`, model });
  }

  const port = opts.port ?? (await freePort());
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((r) => server.listen(port, host, () => r()));
  return {
    baseUrl: `http://${host}:${port}`,
    requests,
    processed: () => [...processed],
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
