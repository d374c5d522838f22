import type { ServerResponse } from "node:http";
import { DOOR_ERROR_HEADER } from "../protocol/door";

/** A JSON answer of the door; errors are `{ "error": { "code", "message" } }` (docs/api.md). */
export function sendJson(
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

export function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: { code, message } }, { ...headers, [DOOR_ERROR_HEADER]: code });
}
