import { ClawrunError } from "../../protocol/clawrun-error";

export class BodyTooLargeError extends ClawrunError {
  static override readonly errorName = "BodyTooLargeError";
  constructor(readonly limit: number) {
    super("payload_too_large", `body is larger than ${limit} bytes`, { status: 413 });
  }
}

/** Reads the raw body (signatures are over exact bytes), refusing more than `limit` bytes early. */
export async function readBodyLimited(request: Request, limit: number): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
