import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { SidecarHealth } from "../protocol/health";

export const HEALTH_PATH = "/health";

/**
 * `GET /health` (seed 001). Binds 0.0.0.0 because the platform routes the sandbox's health
 * port to it from outside; it exposes no secret. Anything else is a JSON 404/405.
 */
export function createHealthServer(getHealth: () => SidecarHealth): Server {
  const server = createServer((req, res) => handle(req, res, getHealth));
  // The parent polls; don't hold idle sockets for long.
  server.keepAliveTimeout = 2_000;
  return server;
}

export function listen(server: Server, port: number, host = "0.0.0.0"): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function handle(req: IncomingMessage, res: ServerResponse, getHealth: () => SidecarHealth): void {
  const path = (req.url ?? "/").split("?")[0];
  if (path !== HEALTH_PATH) {
    send(res, 404, error("not_found", `no route ${path}; try GET ${HEALTH_PATH}`));
    return;
  }
  if (req.method !== "GET") {
    send(res, 405, error("method_not_allowed", `${req.method} ${HEALTH_PATH}: use GET`), {
      allow: "GET",
    });
    return;
  }
  try {
    send(res, 200, getHealth());
  } catch (err) {
    send(res, 500, error("internal", (err as Error).message));
  }
}

function error(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const raw = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(raw),
    "cache-control": "no-store",
    ...headers,
  });
  res.end(raw);
}
