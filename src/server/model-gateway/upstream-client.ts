import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Readable } from "node:stream";

/** Sends one request to the model server and answers like fetch (status, headers, a body stream). */
export type UpstreamFetch = (
  url: string,
  init: { headers: Record<string, string>; body: string | Uint8Array; signal: AbortSignal },
) => Promise<Response>;

/** Idle connections kept per upstream host; an agent rarely has more calls in flight. */
const MAX_FREE_SOCKETS = 16;

/**
 * POSTs to the upstream over connections kept alive between calls, with Node's own http
 * client: no new TCP (and TLS) handshake per call, and not the framework's instrumented
 * global fetch, which costs milliseconds per call on a busy machine (docs/model-gateway.md,
 * "Speed"). One client per server process.
 */
export function keepAliveUpstream(): UpstreamFetch {
  const agents = {
    "http:": new HttpAgent({ keepAlive: true, maxFreeSockets: MAX_FREE_SOCKETS }),
    "https:": new HttpsAgent({ keepAlive: true, maxFreeSockets: MAX_FREE_SOCKETS }),
  };
  return (url, init) =>
    new Promise<Response>((resolve, reject) => {
      const target = new URL(url);
      const secure = target.protocol === "https:";
      if (!secure && target.protocol !== "http:") {
        reject(new Error(`unsupported protocol ${target.protocol}`));
        return;
      }
      const send = secure ? httpsRequest : httpRequest;
      const req = send(
        target,
        {
          method: "POST",
          agent: agents[secure ? "https:" : "http:"],
          headers: { ...init.headers, "content-length": String(Buffer.byteLength(init.body)) },
          signal: init.signal,
        },
        (res) => resolve(toResponse(res)),
      );
      req.on("error", reject);
      req.end(init.body);
    });
}

function toResponse(res: IncomingMessage): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const status = res.statusCode ?? 502;
  // 204/304 may carry no body; Response refuses one for them.
  const empty = status === 204 || status === 304;
  if (empty) res.resume();
  const body = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
  return new Response(body, { status, headers });
}
