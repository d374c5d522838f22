import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errors } from "@upstash/redis";
import IORedis from "ioredis";
import { executeUpstashRequest } from "../../src/server/store/redis/tcp-requester";

/**
 * A small Upstash-REST-compatible front for a throwaway redis-server, built from Upstash's
 * documented REST format: POST / with a JSON command array, POST /pipeline and /multi-exec
 * with arrays of them, `Authorization: Bearer <token>`, and with `Upstash-Encoding: base64`
 * every string in a result base64-encoded except "OK". Lets the redis adapter's REST
 * transport (the real @upstash/redis HTTP client) run against a real Redis.
 */
export interface UpstashRestProxy {
  url: string;
  token: string;
  /** Requests served so far (round trips, as Upstash would bill them). */
  requests(): number;
  stop(): Promise<void>;
}

export async function startUpstashRestProxy(redisUrl: string): Promise<UpstashRestProxy> {
  const token = `test-token-${Math.random().toString(36).slice(2)}`;
  const conn = new IORedis(redisUrl, { maxRetriesPerRequest: 0, lazyConnect: true });
  conn.on("error", () => {}); // surfaced per request below
  await conn.connect();
  let served = 0;

  const server = createServer((req, res) => {
    served++;
    handle(req, res).catch((err: unknown) => send(res, 500, { error: String(err) }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST") return send(res, 405, { error: "only POST is supported here" });
    if (req.headers.authorization !== `Bearer ${token}`) {
      return send(res, 401, { error: "WRONGPASS invalid or missing auth token" });
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return send(res, 400, { error: "request body is not JSON" });
    }
    const path = (req.url ?? "/").split("?")[0]?.replace(/^\/+|\/+$/g, "") ?? "";
    const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
    try {
      const reply = await executeUpstashRequest(conn, { path: path ? [path] : [], body });
      const encode = (r: { result?: unknown; error?: string }) =>
        r.error !== undefined ? { error: r.error } : { result: base64 ? b64(r.result) : r.result };
      if (Array.isArray(reply)) return send(res, 200, reply.map(encode));
      // A failed single command is a 400 with { error }, as documented.
      return send(res, reply.error !== undefined ? 400 : 200, encode(reply));
    } catch (err) {
      if (err instanceof errors.UpstashError) return send(res, 400, { error: err.message });
      return send(res, 503, { error: `redis unreachable: ${(err as Error).message}` });
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    requests: () => served,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      conn.disconnect();
    },
  };
}

function b64(value: unknown): unknown {
  if (typeof value === "string")
    return value === "OK" ? value : Buffer.from(value).toString("base64");
  if (Array.isArray(value)) return value.map(b64);
  return value;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
