import { createHmac, timingSafeEqual } from "node:crypto";
import { ChannelRequestError } from "../types";

/** Meta signs every webhook POST: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`. */
export const SIGNATURE_HEADER = "x-hub-signature-256";

export function hubSignature(appSecret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac("sha256", appSecret).update(rawBody).digest("hex")}`;
}

/** Checks the signature over the exact bytes received (re-serialised JSON would not match). */
export function checkHubSignature(
  headers: { get(name: string): string | null },
  rawBody: Buffer,
  appSecret: string,
): void {
  const given = headers.get(SIGNATURE_HEADER);
  if (given === null)
    throw new ChannelRequestError(
      401,
      "unauthorized",
      "missing X-Hub-Signature-256 header (Meta signs every webhook with the app secret)",
    );
  if (!/^sha256=[0-9a-f]{64}$/i.test(given.trim()))
    throw new ChannelRequestError(
      401,
      "unauthorized",
      "X-Hub-Signature-256: expected sha256=<64 hex digits>",
    );
  const expected = Buffer.from(hubSignature(appSecret, rawBody).slice(7), "hex");
  const actual = Buffer.from(given.trim().slice(7).toLowerCase(), "hex");
  if (!timingSafeEqual(expected, actual))
    throw new ChannelRequestError(
      401,
      "unauthorized",
      "X-Hub-Signature-256 does not match the body signed with WHATSAPP_APP_SECRET",
    );
}
