import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { freePort } from "../free-port";

/** One request a fake platform received, as it arrived. */
export interface RecordedCall {
  method: string;
  /** Path and query, e.g. "/api/chat.postMessage". */
  path: string;
  headers: Record<string, string | undefined>;
  /** The body parsed as JSON (null when empty or not JSON). */
  body: unknown;
  at: number;
  /** The status the fake answered with (unset until it answered). */
  status?: number;
}

export interface FakeReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * A loopback HTTP server for a fake platform API: records every call, then lets `route`
 * answer it. Platform-specific behaviour lives in the platform's own file beside this one.
 */
export async function startRecordingServer(
  route: (call: RecordedCall) => FakeReply | Promise<FakeReply>,
): Promise<{ url: string; calls: RecordedCall[]; stop(): Promise<void> }> {
  const calls: RecordedCall[] = [];
  const server = createServer((req, res) => {
    void handle(req, res);
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: unknown = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = null;
    }
    const headers: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(req.headers))
      headers[k] = Array.isArray(v) ? v.join(", ") : v;
    const call: RecordedCall = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers,
      body,
      at: Date.now(),
    };
    calls.push(call);
    const reply = await route(call);
    call.status = reply.status;
    const text = reply.body === undefined ? "" : JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      ...(reply.body === undefined ? {} : { "content-type": "application/json" }),
      ...reply.headers,
    });
    res.end(text);
  }
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
