import { createPublicKey, type KeyObject, verify } from "node:crypto";

/**
 * Discord's interaction signing (docs/channels/discord.md, "How requests are checked"): an
 * Ed25519 signature (hex, X-Signature-Ed25519) over X-Signature-Timestamp followed by the
 * raw body, made with the key whose public half is the application's "Public Key". Discord
 * sends its own probes with bad signatures and expects 401 for them. A timestamp more than
 * five minutes away is refused too, so a captured request cannot be replayed later.
 */
export const DISCORD_MAX_SKEW_MS = 5 * 60_000;

export type DiscordSignatureFailure = "missing" | "malformed" | "stale" | "mismatch";

export const DISCORD_SIGNATURE_FAILURES: Record<DiscordSignatureFailure, string> = {
  missing: "missing X-Signature-Ed25519 or X-Signature-Timestamp header",
  malformed:
    "X-Signature-Ed25519: expected 128 hex characters and X-Signature-Timestamp Unix seconds",
  stale:
    "X-Signature-Timestamp: more than 5 minutes away from this server's clock (a replayed or delayed request)",
  mismatch:
    "X-Signature-Ed25519: not a valid signature of this request (is channels.discord.publicKey the application's Public Key?)",
};

/** The public key from its 64-hex-character form (as the Developer Portal shows it). */
export function discordPublicKey(hex: string): KeyObject {
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new RangeError("expected 64 hex characters");
  const x = Buffer.from(hex, "hex").toString("base64url");
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
}

export function verifyDiscordSignature(
  key: KeyObject,
  headers: { get(name: string): string | null },
  rawBody: Buffer,
  nowMs: number,
): { ok: true } | { ok: false; reason: DiscordSignatureFailure } {
  const signature = headers.get("x-signature-ed25519");
  const timestamp = headers.get("x-signature-timestamp");
  if (!signature || !timestamp) return { ok: false, reason: "missing" };
  if (!/^[0-9a-f]{128}$/i.test(signature) || !/^\d{1,12}$/.test(timestamp))
    return { ok: false, reason: "malformed" };
  if (Math.abs(nowMs - Number(timestamp) * 1000) > DISCORD_MAX_SKEW_MS)
    return { ok: false, reason: "stale" };
  const signed = Buffer.concat([Buffer.from(timestamp, "utf8"), rawBody]);
  if (!ed25519Verify(key, signed, signature)) return { ok: false, reason: "mismatch" };
  return { ok: true };
}

/** Plain Ed25519 (RFC 8032) verification of a hex signature. */
export function ed25519Verify(key: KeyObject, message: Buffer, signatureHex: string): boolean {
  return verify(null, message, key, Buffer.from(signatureHex, "hex"));
}
