import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";

export interface PostAnswer {
  status: number;
  text: string;
}

/** The most of an answer read back (the server's heartbeat answer is a few dozen bytes). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs a JSON body with node:http(s). Not `fetch`: Node's fetch (undici) costs the sidecar
 * ~16 MB of resident memory once loaded, more than everything else it does while idle
 * (docs/sidecar.md, "Memory"). https is loaded only for an https parent. Rejects on a
 * network error, or with a TimeoutError after `timeoutMs`.
 */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<PostAnswer> {
  const target = new URL(url);
  const request = target.protocol === "https:" ? (await import("node:https")).request : httpRequest;
  const options: RequestOptions = {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
      ...headers,
    },
  };
  return new Promise((resolve, reject) => {
    const req = request(target, options, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
      });
      res.on("end", () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") });
      });
      res.on("error", fail);
    });
    const timer = setTimeout(() => {
      const err = new Error(`no answer within ${timeoutMs} ms`);
      err.name = "TimeoutError";
      req.destroy(err);
    }, timeoutMs);
    function fail(err: Error): void {
      clearTimeout(timer);
      reject(err);
    }
    req.on("error", fail);
    req.end(body);
  });
}
