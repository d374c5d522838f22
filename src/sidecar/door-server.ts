import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  DELIVERY_ID_HEADER,
  DOOR_ERRORS,
  DOOR_MAX_BODY_BYTES,
  DOOR_MAX_HEALTH_WAIT_MS,
  DOOR_MAX_LOG_TAIL_BYTES,
  DOOR_REPLAYED_HEADER,
  DOOR_ROUTES,
} from "../protocol/door";
import { parseGatewayRpcRequest } from "../protocol/gateway-rpc";
import type { SidecarHealth } from "../protocol/health";
import {
  DOOR_VERIFY_FAILURE_MESSAGES,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifyDoorRequest,
} from "../protocol/signing";
import { forwardToDaemon } from "./daemon-proxy";
import { gatewayRpc } from "./gateway-rpc";
import { sendError, sendJson } from "./http-reply";
import { readLogTail } from "./log-tail";
import type { OpenDeliveries } from "./open-deliveries";
import type { ReplyJournal } from "./reply-journal";
import { WebSocketUnreachableError } from "./ws-client";

export interface DoorOptions {
  /** The per-sandbox secret every request must be signed with. */
  secret: string;
  getHealth: () => SidecarHealth;
  /**
   * Resolves when the health may have changed (the daemon's status), or after `ms`: lets
   * `GET /health?wait=` hold its answer while the daemon starts. Unset: answered at once.
   */
  healthChanged?: (ms: number) => Promise<void>;
  /** Where the daemon listens: loopback only. */
  daemon: { host: string; port: number };
  logPath: string;
  /** A delivery (any non-GET request to the daemon) started or its answer was sent back. */
  onDelivery?: () => void;
  /** Tracks each delivery from its start until its answer was sent (or it broke off). */
  openDeliveries?: OpenDeliveries;
  /** Answers of delivered message ids: a redelivery is answered from it, not by the daemon. */
  journal?: ReplyJournal;
  maxBodyBytes?: number;
  now?: () => number;
}

/** Without `tail`, the door answers this much of the log. */
export const DEFAULT_LOG_TAIL_BYTES = 64 * 1024;

/**
 * The sandbox's only door (docs/sidecar.md, "The door"): `GET /health`, `GET /logs?tail=`,
 * and `/daemon/<path>` (deliveries) or `/control/<path>` (ClawRun's own calls) forwarded to
 * the daemon on loopback. Every request is checked against
 * the per-sandbox secret first (method, path and body are signed); anything unsigned, forged
 * or stale is a 401 naming the header, before the body is even read when headers are missing.
 * Binds 0.0.0.0 on Vercel, where the platform routes the sandbox's exposed port to it from
 * outside, and loopback on the local provider (resolveListenHost in src/protocol/constants.ts).
 */
export function createDoorServer(opts: DoorOptions): Server {
  const server = createServer((req, res) => {
    handle(req, res, opts).catch((err: Error) => {
      if (!res.headersSent) sendError(res, 500, "internal", err.message);
      else res.destroy();
    });
  });
  // ClawRun polls health during a start; don't hold idle sockets for long.
  server.keepAliveTimeout = 2_000;
  return server;
}

async function handle(req: IncomingMessage, res: ServerResponse, opts: DoorOptions): Promise<void> {
  const method = req.method ?? "GET";
  const target = req.url ?? "/";
  if (!req.headers[SIGNATURE_HEADER] || !req.headers[TIMESTAMP_HEADER]) {
    const missing = req.headers[TIMESTAMP_HEADER] ? "missing-signature" : "missing-timestamp";
    req.resume();
    unauthorized(res, DOOR_VERIFY_FAILURE_MESSAGES[missing]);
    return;
  }
  const body = await readBody(req, opts.maxBodyBytes ?? DOOR_MAX_BODY_BYTES);
  if (body === null) {
    sendError(
      res,
      413,
      DOOR_ERRORS.bodyTooLarge,
      `request body is over ${opts.maxBodyBytes ?? DOOR_MAX_BODY_BYTES} bytes`,
      { connection: "close" },
    );
    return;
  }
  const check = verifyDoorRequest(
    opts.secret,
    {
      method,
      path: target,
      headers: { get: (name) => headerValue(req, name) },
      rawBody: body,
    },
    (opts.now ?? Date.now)(),
  );
  if (!check.ok) {
    unauthorized(res, DOOR_VERIFY_FAILURE_MESSAGES[check.reason]);
    return;
  }

  const url = new URL(target, "http://door");
  const path = url.pathname;
  const control = underPrefix(path, DOOR_ROUTES.controlPrefix);
  if (control || underPrefix(path, DOOR_ROUTES.daemonPrefix)) {
    const prefix = control ? DOOR_ROUTES.controlPrefix : DOOR_ROUTES.daemonPrefix;
    const rest = target.slice(prefix.length);
    // ClawRun's own calls (control) are not the agent's work: they must not keep it awake.
    const delivery = !control && method !== "GET" && method !== "HEAD";
    const messageId = delivery ? headerValue(req, DELIVERY_ID_HEADER) : null;
    const journal = messageId ? opts.journal : undefined;
    const known = messageId ? journal?.get(messageId) : undefined;
    if (known) {
      // Already answered (a crash or retry between the answer and ClawRun's ack): same answer,
      // and the daemon never sees the message twice.
      res.writeHead(known.status, {
        ...(known.contentType ? { "content-type": known.contentType } : {}),
        "content-length": Buffer.byteLength(known.body),
        [DOOR_REPLAYED_HEADER]: "1",
      });
      res.end(known.body);
      return;
    }
    if (delivery) opts.onDelivery?.();
    const ended = delivery ? opts.openDeliveries?.begin() : undefined;
    forwardToDaemon({
      ...opts.daemon,
      method,
      path: rest.startsWith("/") ? rest : `/${rest}`,
      headers: req.headers,
      body,
      res,
      ...(journal && messageId
        ? {
            keepUpTo: journal.maxBodyBytes,
            onAnswer: (a: { status: number; contentType: string | null; body: Buffer }) => {
              if (a.status < 200 || a.status > 299) return; // a refusal may be retried for real
              try {
                journal.put(messageId, { ...a, body: a.body.toString("utf8") });
              } catch {
                // A full disk loses only the dedupe of this one message, never its answer.
              }
            },
          }
        : {}),
      // The reply counts too: a long turn ends with activity, not only begins with it.
      onDone: (outcome) => {
        ended?.();
        if (delivery && outcome === "answered") opts.onDelivery?.();
      },
    });
    return;
  }
  if (path === DOOR_ROUTES.gatewayRpc) {
    if (method !== "POST") {
      sendError(res, 405, DOOR_ERRORS.methodNotAllowed, `${method} ${path}: use POST`, {
        allow: "POST",
      });
      return;
    }
    await answerGatewayRpc(res, opts.daemon, body);
    return;
  }
  if (path === DOOR_ROUTES.health) {
    if (!onlyGet(method, path, res)) return;
    const wait = parseHealthWait(url.searchParams.get("wait"));
    if (typeof wait === "string") {
      sendError(res, 400, DOOR_ERRORS.badRequest, wait);
      return;
    }
    // Held only while the daemon starts: any other status is already the answer worth having.
    if (wait > 0 && opts.healthChanged && opts.getHealth().daemon.status === "starting") {
      await opts.healthChanged(wait);
    }
    sendJson(res, 200, opts.getHealth());
    return;
  }
  if (path === DOOR_ROUTES.logs) {
    if (!onlyGet(method, path, res)) return;
    const tail = parseTail(url.searchParams.get("tail"));
    if (typeof tail === "string") {
      sendError(res, 400, DOOR_ERRORS.badRequest, tail);
      return;
    }
    const text = await readLogTail(opts.logPath, tail);
    res.writeHead(200, {
      "content-type": "text/plain; charset=utf-8",
      "content-length": text.length,
      "cache-control": "no-store",
    });
    res.end(text);
    return;
  }
  sendError(
    res,
    404,
    DOOR_ERRORS.notFound,
    `no route ${path}; the door serves GET ${DOOR_ROUTES.health}[?wait=<ms>], GET ${DOOR_ROUTES.logs}?tail=<bytes>, ${DOOR_ROUTES.daemonPrefix}/<path>, ${DOOR_ROUTES.controlPrefix}/<path> and POST ${DOOR_ROUTES.gatewayRpc}`,
  );
}

/** Pure: the `wait` query parameter of `GET /health` (0 when absent), or what is wrong with it. */
export function parseHealthWait(raw: string | null): number | string {
  if (raw === null) return 0;
  const n = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n > DOOR_MAX_HEALTH_WAIT_MS) {
    return `query parameter "wait": expected a number of ms from 0 to ${DOOR_MAX_HEALTH_WAIT_MS}, got ${JSON.stringify(raw)}`;
  }
  return n;
}

/** Pure: the `tail` query parameter, or what is wrong with it. */
export function parseTail(raw: string | null): number | string {
  if (raw === null) return DEFAULT_LOG_TAIL_BYTES;
  const n = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > DOOR_MAX_LOG_TAIL_BYTES) {
    return `query parameter "tail": expected a number of bytes from 1 to ${DOOR_MAX_LOG_TAIL_BYTES}, got ${JSON.stringify(raw)}`;
  }
  return n;
}

/** `POST /gateway-rpc`: ClawRun's own call over the daemon's WebSocket (never activity). */
async function answerGatewayRpc(
  res: ServerResponse,
  daemon: { host: string; port: number },
  body: Buffer,
): Promise<void> {
  let json: unknown;
  try {
    json = JSON.parse(body.toString("utf8"));
  } catch {
    sendError(res, 400, DOOR_ERRORS.badRequest, "the body is not JSON");
    return;
  }
  const call = parseGatewayRpcRequest(json);
  if (!call.ok) {
    sendError(res, 400, DOOR_ERRORS.badRequest, call.error);
    return;
  }
  try {
    sendJson(res, 200, await gatewayRpc(daemon, call.value));
  } catch (err) {
    if (err instanceof WebSocketUnreachableError)
      sendError(res, 502, DOOR_ERRORS.daemonUnreachable, `daemon unreachable: ${err.message}`);
    else sendError(res, 504, DOOR_ERRORS.gatewayRpcFailed, (err as Error).message);
  }
}

function underPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

function onlyGet(method: string, path: string, res: ServerResponse): boolean {
  if (method === "GET") return true;
  sendError(res, 405, DOOR_ERRORS.methodNotAllowed, `${method} ${path}: use GET`, {
    allow: "GET",
  });
  return false;
}

function unauthorized(res: ServerResponse, message: string): void {
  sendError(res, 401, DOOR_ERRORS.unauthorized, message, {
    "www-authenticate": `ClawRun-HMAC header="${SIGNATURE_HEADER}"`,
  });
}

function headerValue(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name.toLowerCase()];
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/** The whole body, or null once it passes `max` (the rest is drained, not buffered). */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) over = true;
      if (!over) chunks.push(chunk);
    });
    req.on("end", () => resolve(over ? null : Buffer.concat(chunks)));
    req.on("error", reject);
  });
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
