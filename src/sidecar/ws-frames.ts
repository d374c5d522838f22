import { createHash, randomBytes } from "node:crypto";

/**
 * The parts of RFC 6455 a small client needs: the handshake's accept check, masked frames out,
 * unmasked frames in (text, continuation, ping, pong, close). Pure apart from the random mask
 * and key; no extensions (OpenClaw's gateway negotiates none).
 */

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

export const OPCODES = {
  continuation: 0,
  text: 1,
  binary: 2,
  close: 8,
  ping: 9,
  pong: 10,
} as const;

/** A fresh `Sec-WebSocket-Key`. */
export function websocketKey(): string {
  return randomBytes(16).toString("base64");
}

/** The `Sec-WebSocket-Accept` a server must answer to `key` (RFC 6455 §4.2.2). */
export function acceptFor(key: string): string {
  return createHash("sha1")
    .update(key + GUID)
    .digest("base64");
}

/** One client frame (FIN set, masked as clients must). */
export function encodeFrame(opcode: number, payload: Buffer, mask = randomBytes(4)): Buffer {
  const len = payload.length;
  const head = len < 126 ? Buffer.alloc(2) : len < 0x10000 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = 0x80 | opcode;
  if (len < 126) head[1] = 0x80 | len;
  else if (len < 0x10000) {
    head[1] = 0x80 | 126;
    head.writeUInt16BE(len, 2);
  } else {
    head[1] = 0x80 | 127;
    head.writeBigUInt64BE(BigInt(len), 2);
  }
  const body = Buffer.alloc(len);
  for (let i = 0; i < len; i++) body[i] = (payload[i] as number) ^ (mask[i % 4] as number);
  return Buffer.concat([head, mask, body]);
}

export interface Frame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
}

/**
 * Server frames from a byte stream: feed chunks, take whole frames. A frame over `maxBytes`
 * (or a masked one, which a server must not send) is an error: the connection is dropped.
 */
export class FrameDecoder {
  private buf: Buffer = Buffer.alloc(0);

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): Frame[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const frames: Frame[] = [];
    for (;;) {
      const frame = this.next();
      if (!frame) return frames;
      frames.push(frame);
    }
  }

  private next(): Frame | null {
    const b = this.buf;
    if (b.length < 2) return null;
    const first = b[0] as number;
    const second = b[1] as number;
    if (second & 0x80) throw new Error("websocket: the server sent a masked frame");
    let len = second & 0x7f;
    let offset = 2;
    if (len === 126) {
      if (b.length < 4) return null;
      len = b.readUInt16BE(2);
      offset = 4;
    } else if (len === 127) {
      if (b.length < 10) return null;
      const big = b.readBigUInt64BE(2);
      if (big > BigInt(this.maxBytes)) throw tooLarge(this.maxBytes);
      len = Number(big);
      offset = 10;
    }
    if (len > this.maxBytes) throw tooLarge(this.maxBytes);
    if (b.length < offset + len) return null;
    const payload = b.subarray(offset, offset + len);
    this.buf = b.subarray(offset + len);
    return { fin: (first & 0x80) !== 0, opcode: first & 0x0f, payload: Buffer.from(payload) };
  }
}

function tooLarge(max: number): Error {
  return new Error(`websocket: a frame is over ${max} bytes`);
}

/** Pure: the close frame's payload for `code` (RFC 6455 §5.5.1). */
export function closePayload(code: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(code, 0);
  return b;
}
