import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

export interface HttpAnswer {
  status: number;
  /** The whole body; rejects when it breaks off or the signal ends it. */
  text: Promise<string>;
}

export interface HttpInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/**
 * One HTTP(S) request with node:http rather than fetch: on Node 20 the first fetch loads
 * undici, ~0.27 CPU-s of every CLI run that talks to a server (`status` cost 0.53 CPU-s, its
 * `--help` 0.24). Redirects are not followed: a 3xx is an answer like any other. Resolves at
 * the status line; a failure before it (refused, reset, aborted) rejects with the socket's
 * error (its `code`, e.g. ECONNREFUSED).
 */
export function httpText(url: string, init: HttpInit): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    const headers = { ...init.headers };
    if (init.body !== undefined) headers["content-length"] = String(Buffer.byteLength(init.body));
    const req = send(target, { method: init.method, headers, signal: init.signal }, (res) =>
      resolve({ status: res.statusCode ?? 0, text: bodyOf(res) }),
    );
    req.once("error", reject);
    req.end(init.body);
  });
}

function bodyOf(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (chunk: Buffer) => chunks.push(chunk));
    res.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    // A connection cut mid-body or the signal firing while it arrives: "error" on Node 20,
    // and "close" before "end" catches any ending that says nothing (the deprecated "aborted").
    res.once("error", reject);
    res.once("close", () => {
      if (!res.complete) reject(new Error("the connection closed before the whole answer"));
    });
  });
}
