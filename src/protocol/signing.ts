import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * One signing scheme for everything ClawRun signs or verifies (heartbeats, the generic
 * webhook, replies): HMAC-SHA256 over `${timestamp}.${rawBody}`, hex, sent as
 * `x-clawrun-timestamp: <epoch ms>` and `x-clawrun-signature: v1=<hex>`.
 * The timestamp bounds replays to the tolerance window.
 */
export const TIMESTAMP_HEADER = "x-clawrun-timestamp";
export const SIGNATURE_HEADER = "x-clawrun-signature";
export const DEFAULT_TOLERANCE_MS = 5 * 60_000;

export function sign(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  const mac = createHmac("sha256", secret);
  mac.update(`${timestamp}.`);
  mac.update(rawBody);
  return `v1=${mac.digest("hex")}`;
}

export function signatureHeaders(
  secret: string,
  rawBody: string,
  now = Date.now(),
): Record<string, string> {
  return { [TIMESTAMP_HEADER]: String(now), [SIGNATURE_HEADER]: sign(secret, now, rawBody) };
}

export type VerifyResult =
  | { ok: true; timestamp: number }
  | {
      ok: false;
      reason: "missing-signature" | "missing-timestamp" | "bad-timestamp" | "stale" | "mismatch";
    };

export interface SignedHeaders {
  get(name: string): string | null;
}

export function verify(
  secret: string,
  headers: SignedHeaders,
  rawBody: string | Uint8Array,
  now: number,
  toleranceMs = DEFAULT_TOLERANCE_MS,
): VerifyResult {
  const tsRaw = headers.get(TIMESTAMP_HEADER);
  const sig = headers.get(SIGNATURE_HEADER);
  if (!tsRaw) return { ok: false, reason: "missing-timestamp" };
  if (!sig) return { ok: false, reason: "missing-signature" };
  if (!/^\d{1,16}$/.test(tsRaw)) return { ok: false, reason: "bad-timestamp" };
  const timestamp = Number(tsRaw);
  if (Math.abs(now - timestamp) > toleranceMs) return { ok: false, reason: "stale" };
  const expected = Buffer.from(sign(secret, timestamp, rawBody));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    return { ok: false, reason: "mismatch" };
  }
  return { ok: true, timestamp };
}

export const VERIFY_FAILURE_MESSAGES: Record<
  Exclude<VerifyResult, { ok: true }>["reason"],
  string
> = {
  "missing-signature": `missing ${SIGNATURE_HEADER} header (expected "v1=<hex hmac-sha256>")`,
  "missing-timestamp": `missing ${TIMESTAMP_HEADER} header (expected epoch milliseconds)`,
  "bad-timestamp": `${TIMESTAMP_HEADER} header: expected epoch milliseconds`,
  stale: `${TIMESTAMP_HEADER} is more than 5 minutes from the server's clock`,
  mismatch: `${SIGNATURE_HEADER} does not match the body`,
};

/**
 * Requests ClawRun sends to the sidecar's door (docs/sidecar.md, "The door") are signed with
 * the same per-sandbox secret and headers, over `${METHOD} ${path}\n${rawBody}` instead of the
 * body alone: a signature for one route (or one method) cannot be replayed to another. The
 * path includes the query string. The window is short because ClawRun signs each request just
 * before sending it.
 */
export const DOOR_TOLERANCE_MS = 60_000;

export function doorSigningPayload(
  method: string,
  path: string,
  rawBody: string | Uint8Array,
): Buffer {
  const head = Buffer.from(`${method.toUpperCase()} ${path}\n`);
  return Buffer.concat([head, typeof rawBody === "string" ? Buffer.from(rawBody) : rawBody]);
}

export function doorSignatureHeaders(
  secret: string,
  method: string,
  path: string,
  rawBody: string | Uint8Array,
  now = Date.now(),
): Record<string, string> {
  return {
    [TIMESTAMP_HEADER]: String(now),
    [SIGNATURE_HEADER]: sign(secret, now, doorSigningPayload(method, path, rawBody)),
  };
}

export function verifyDoorRequest(
  secret: string,
  req: { method: string; path: string; headers: SignedHeaders; rawBody: string | Uint8Array },
  now: number,
): VerifyResult {
  return verify(
    secret,
    req.headers,
    doorSigningPayload(req.method, req.path, req.rawBody),
    now,
    DOOR_TOLERANCE_MS,
  );
}

/** The door's 401 messages: which header, and what was expected. */
export const DOOR_VERIFY_FAILURE_MESSAGES: Record<
  Exclude<VerifyResult, { ok: true }>["reason"],
  string
> = {
  ...VERIFY_FAILURE_MESSAGES,
  stale: `${TIMESTAMP_HEADER} is more than ${DOOR_TOLERANCE_MS / 1000} s from the sidecar's clock`,
  mismatch: `${SIGNATURE_HEADER} does not match the method, path and body (expected "v1=" + hex HMAC-SHA256 of "<timestamp>.<METHOD> <path>\\n<body>" with the sandbox's secret)`,
};
