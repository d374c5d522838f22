import {
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  request,
  type ServerResponse,
} from "node:http";
import { DELIVERY_ID_HEADER, DOOR_ERROR_HEADER, DOOR_ERRORS } from "../protocol/door";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../protocol/signing";
import { sendError } from "./http-reply";

/** RFC 9110 §7.6.1: meaningful for one connection only, never forwarded by a proxy. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Pure: headers without hop-by-hop ones (and those the Connection header names) or `drop`. */
export function forwardableHeaders(
  headers: IncomingHttpHeaders,
  drop: readonly string[] = [],
): OutgoingHttpHeaders {
  const named = String(headers.connection ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== "");
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || named.includes(lower)) continue;
    if (drop.includes(lower)) continue;
    out[lower] = value;
  }
  return out;
}

/** The door's own headers and those that describe the hop to the sidecar, not to the daemon. */
const REQUEST_DROP = [
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  DELIVERY_ID_HEADER,
  "host",
  "content-length",
];

export interface ForwardInput {
  host: string;
  port: number;
  method: string;
  /** Path and query on the daemon. */
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  res: ServerResponse;
  /** Called once the daemon's answer has been fully sent back (or failed midway). */
  onDone?: (outcome: "answered" | "unreachable" | "aborted") => void;
  /** Receives the daemon's whole answer once sent back, when at most `keepUpTo` bytes long. */
  onAnswer?: (answer: { status: number; contentType: string | null; body: Buffer }) => void;
  keepUpTo?: number;
}

/**
 * Forwards one request to the daemon on loopback and streams its status, headers and body
 * back. Nothing listening (refused, reset before an answer) is a 502 with the code
 * `daemon_unreachable`, which ClawRun treats as "the agent is down", not as a refusal of the
 * message. When ClawRun hangs up (its delivery timeout), the request to the daemon is dropped.
 */
export function forwardToDaemon(input: ForwardInput): void {
  const { res } = input;
  let finished = false;
  const done = (outcome: "answered" | "unreachable" | "aborted"): void => {
    if (finished) return;
    finished = true;
    input.onDone?.(outcome);
  };
  const upstream = request({
    host: input.host,
    port: input.port,
    method: input.method,
    path: input.path,
    headers: {
      ...forwardableHeaders(input.headers, REQUEST_DROP),
      host: `${input.host}:${input.port}`,
      "content-length": String(input.body.length),
    },
  });
  upstream.on("response", (answer) => {
    // The daemon cannot pass its answer off as the door's own error.
    res.writeHead(
      answer.statusCode ?? 502,
      forwardableHeaders(answer.headers, [DOOR_ERROR_HEADER]),
    );
    answer.pipe(res);
    // A copy for the reply journal, dropped as soon as it grows past what may be kept.
    let kept: Buffer[] | null = input.onAnswer ? [] : null;
    let keptBytes = 0;
    answer.on("data", (chunk: Buffer) => {
      if (!kept) return;
      keptBytes += chunk.length;
      if (keptBytes > (input.keepUpTo ?? Number.POSITIVE_INFINITY)) kept = null;
      else kept.push(chunk);
    });
    answer.on("end", () => {
      if (kept)
        input.onAnswer?.({
          status: answer.statusCode ?? 502,
          contentType: answer.headers["content-type"] ?? null,
          body: Buffer.concat(kept),
        });
      done("answered");
    });
    answer.on("error", () => {
      res.destroy();
      done("aborted");
    });
  });
  upstream.on("error", (err: NodeJS.ErrnoException) => {
    if (res.headersSent) {
      res.destroy();
      done("aborted");
      return;
    }
    sendError(
      res,
      502,
      DOOR_ERRORS.daemonUnreachable,
      `daemon unreachable on ${input.host}:${input.port}: ${err.code ?? err.message}`,
    );
    done("unreachable");
  });
  // ClawRun gave up (delivery timeout) or the connection broke: stop the daemon's request too.
  res.on("close", () => {
    if (!res.writableFinished) {
      upstream.destroy();
      done("aborted");
    }
  });
  upstream.end(input.body);
}
