import { NextResponse } from "next/server";

/** DESIGN invariant 1: every 4xx/5xx is `{ "error": { "code", "message" } }`. */
export function jsonError(
  status: number,
  code: string,
  message: string,
  headers?: HeadersInit,
): NextResponse {
  return NextResponse.json({ error: { code, message } }, { status, headers });
}
