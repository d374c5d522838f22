import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { freePort } from "../free-port";

/** A request as a fake platform received it. */
export interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  /** JSON, form or query parameters, merged (platforms accept all three). */
  params: Record<string, unknown>;
  raw: string;
}

/**
 * A loopback HTTP server for a fake chat platform: parses JSON, form-encoded and query
 * parameters the way the platforms document they accept them, and hands them to `handle`.
 */
export async function startJsonServer(
  handle: (
    req: Received,
  ) => Promise<{ status: number; body: unknown; headers?: Record<string, string> }>,
): Promise<{ url: string; stop(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    void serve(req, res, handle);
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  handle: Parameters<typeof startJsonServer>[0],
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString("utf8");
  const url = new URL(req.url ?? "/", "http://fake");
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const type = req.headers["content-type"] ?? "";
  try {
    if (type.includes("application/json") && raw) Object.assign(params, JSON.parse(raw));
    else if (type.includes("application/x-www-form-urlencoded"))
      Object.assign(params, Object.fromEntries(new URLSearchParams(raw)));
  } catch {
    res.writeHead(400, { "content-type": "application/json" }).end('{"error":"bad json"}');
    return;
  }
  const out = await handle({
    method: req.method ?? "GET",
    path: url.pathname,
    query: url.searchParams,
    headers: req.headers,
    params,
    raw,
  }).catch((err: unknown) => ({ status: 500, body: { error: String(err) }, headers: {} }));
  res
    .writeHead(out.status, { "content-type": "application/json", ...out.headers })
    .end(JSON.stringify(out.body));
}
