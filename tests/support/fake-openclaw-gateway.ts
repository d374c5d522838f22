import { createHash, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";

/**
 * A stand-in for OpenClaw's gateway WebSocket, speaking the frames its shipped docs describe
 * (openclaw@2026.9.6: docs/gateway/protocol/{transport,handshake}.md, docs/gateway/external-apps.md
 * for `gateway.suspend.*`): a `connect.challenge` event first, a `connect` request answered by
 * `hello-ok` (or an error and close 1008), then `req`/`res` frames. Frames are written byte by
 * byte here (RFC 6455), not with ClawRun's codec, so the client is checked against another
 * implementation. Knobs exercise the awkward parts: a hello over 64 KiB (64-bit length), a
 * ping before an answer, an answer split into continuation frames, silence.
 */
export interface FakeGatewayOptions {
  token: string;
  /** `prepare` answers busy this many times before it answers ready. */
  busyTimes?: number;
  /** Pad hello-ok's method list to at least this many bytes. */
  helloBytes?: number;
  /** Split each answer to a call into frames of this many bytes (continuation frames). */
  fragmentBytes?: number;
  /** Send a ping before each answer to a call. */
  pingFirst?: boolean;
  /** Answer nothing after the challenge. */
  silent?: boolean;
}

export interface FakeGateway {
  port: number;
  /** Every request frame received, in order. */
  requests: Array<{ method: string; params: Record<string, unknown> }>;
  /** Pongs received (answers to our pings). */
  pongs: number;
  /** The suspension held now, if any. */
  held: { suspensionId: string; requestId: string; expiresAtMs: number } | null;
  close(): Promise<void>;
}

const LEASE_MS = 120_000;

interface Reply {
  ok: boolean;
  body: unknown;
}
const r = (ok: boolean, body: unknown): Reply => ({ ok, body });

export async function startFakeGateway(o: FakeGatewayOptions): Promise<FakeGateway> {
  const sockets = new Set<Duplex>();
  const fake: FakeGateway = {
    port: 0,
    requests: [],
    pongs: 0,
    held: null,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
  let busyLeft = o.busyTimes ?? 0;
  const server: Server = createServer((_req, res) => res.writeHead(426).end("upgrade required"));
  server.on("upgrade", (req, socket) => {
    sockets.add(socket);
    const key = String(req.headers["sec-websocket-key"] ?? "");
    const accept = createHash("sha1")
      .update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest("base64");
    socket.write(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    const send = (value: unknown, fragment = 0): void => {
      const data = Buffer.from(JSON.stringify(value));
      if (fragment <= 0 || data.length <= fragment) {
        socket.write(frame(0x1, data, true));
        return;
      }
      for (let i = 0; i < data.length; i += fragment) {
        const last = i + fragment >= data.length;
        socket.write(frame(i === 0 ? 0x1 : 0x0, data.subarray(i, i + fragment), last));
      }
    };
    const answer = (id: string, ok: boolean, body: unknown): void => {
      if (o.pingFirst) socket.write(frame(0x9, Buffer.from("are you there"), true));
      send(
        ok ? { type: "res", id, ok, payload: body } : { type: "res", id, ok, error: body },
        o.fragmentBytes,
      );
    };
    send({
      type: "event",
      event: "connect.challenge",
      payload: { nonce: randomUUID(), ts: Date.now() },
    });
    let connected = false;
    let buf = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        const got = readMasked(buf);
        if (!got) return;
        buf = buf.subarray(got.used);
        if (got.opcode === 0xa) fake.pongs++;
        if (got.opcode === 0x8) socket.end();
        if (got.opcode !== 0x1) continue;
        const f = JSON.parse(got.payload.toString("utf8")) as {
          id: string;
          method: string;
          params?: Record<string, unknown>;
        };
        const params = f.params ?? {};
        fake.requests.push({ method: f.method, params });
        if (o.silent) continue;
        if (!connected) {
          const client = params.client as Record<string, unknown> | undefined;
          const auth = params.auth as Record<string, unknown> | undefined;
          if (
            f.method !== "connect" ||
            Number(params.minProtocol) > 4 ||
            Number(params.maxProtocol) < 4 ||
            !client?.version ||
            !client?.platform ||
            auth?.token !== o.token
          ) {
            answer(f.id, false, {
              code: "INVALID_REQUEST",
              message: "unauthorized: gateway token mismatch",
            });
            socket.end(frame(0x8, Buffer.from([0x03, 0xf0]), true)); // 1008
            return;
          }
          connected = true;
          const methods = [
            "gateway.suspend.prepare",
            "gateway.suspend.status",
            "gateway.suspend.resume",
          ];
          // ~30 bytes per padding name: enough of them to pass helloBytes.
          const padding = Math.ceil((o.helloBytes ?? 0) / 30);
          for (let n = 0; n < padding; n++)
            methods.push(`padding.method.${String(n).padStart(8, "0")}`);
          answer(f.id, true, {
            type: "hello-ok",
            protocol: 4,
            server: { version: "fake", connId: randomUUID() },
            features: { methods, events: [] },
            snapshot: { suspension: { phase: fake.held ? "prepared" : "accepting" } },
            auth: { role: "operator", scopes: params.scopes ?? [] },
            policy: { maxPayload: 26214400, maxBufferedBytes: 52428800, tickIntervalMs: 15000 },
          });
          continue;
        }
        const a = answerCall(f.method, params);
        answer(f.id, a.ok, a.body);
      }
    });
    const answerCall = (method: string, params: Record<string, unknown>): Reply => {
      const now = Date.now();
      if (fake.held && fake.held.expiresAtMs <= now) fake.held = null;
      if (method === "gateway.suspend.prepare") {
        const requestId = typeof params.requestId === "string" ? params.requestId.trim() : "";
        if (!requestId)
          return r(false, {
            code: "INVALID_REQUEST",
            message: "invalid gateway.suspend.prepare params",
          });
        if (fake.held && fake.held.requestId !== requestId)
          return r(false, {
            code: "UNAVAILABLE",
            message: "another gateway suspension is already prepared",
            retryable: true,
            retryAfterMs: fake.held.expiresAtMs - now,
            details: { reason: "gateway-suspension-conflict", expiresAtMs: fake.held.expiresAtMs },
          });
        if (busyLeft > 0) {
          busyLeft--;
          return r(true, {
            status: "busy",
            reason: "active-work",
            retryAfterMs: 20_000,
            activeCount: 1,
            blockers: [{ kind: "root-request", count: 1, message: "1 active request" }],
          });
        }
        fake.held ??= { suspensionId: randomUUID(), requestId, expiresAtMs: now + LEASE_MS };
        return r(true, {
          status: "ready",
          suspensionId: fake.held.suspensionId,
          expiresAtMs: fake.held.expiresAtMs,
          activeCount: 0,
          blockers: [],
        });
      }
      if (method === "gateway.suspend.resume" || method === "gateway.suspend.status") {
        const suspensionId =
          typeof params.suspensionId === "string" ? params.suspensionId.trim() : "";
        if (!suspensionId)
          return r(false, {
            code: "INVALID_REQUEST",
            message: `invalid ${method} params`,
          });
        if (method === "gateway.suspend.status")
          return r(
            true,
            fake.held
              ? { status: "ready", expiresAtMs: fake.held.expiresAtMs }
              : { status: "running" },
          );
        if (fake.held && fake.held.suspensionId !== suspensionId)
          return r(false, {
            code: "INVALID_REQUEST",
            message: "gateway suspension id does not match",
          });
        const resumed = fake.held !== null;
        fake.held = null;
        return r(true, { ok: true, status: "running", resumed });
      }
      return r(false, { code: "INVALID_REQUEST", message: `unknown method ${method}` });
    };
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  fake.port = (server.address() as AddressInfo).port;
  return fake;
}

/** One unmasked server frame. */
function frame(opcode: number, payload: Buffer, fin: boolean): Buffer {
  const first = (fin ? 0x80 : 0) | opcode;
  if (payload.length < 126) return Buffer.concat([Buffer.from([first, payload.length]), payload]);
  if (payload.length < 65536) {
    const head = Buffer.from([first, 126, 0, 0]);
    head.writeUInt16BE(payload.length, 2);
    return Buffer.concat([head, payload]);
  }
  const head = Buffer.alloc(10);
  head[0] = first;
  head[1] = 127;
  head.writeBigUInt64BE(BigInt(payload.length), 2);
  return Buffer.concat([head, payload]);
}

/** One masked client frame from the start of `b`, or null when it is not all there yet. */
function readMasked(b: Buffer): { opcode: number; payload: Buffer; used: number } | null {
  if (b.length < 2) return null;
  if (!((b[1] as number) & 0x80)) throw new Error("a client frame must be masked");
  let len = (b[1] as number) & 0x7f;
  let at = 2;
  if (len === 126) {
    if (b.length < 4) return null;
    len = b.readUInt16BE(2);
    at = 4;
  } else if (len === 127) {
    if (b.length < 10) return null;
    len = Number(b.readBigUInt64BE(2));
    at = 10;
  }
  if (b.length < at + 4 + len) return null;
  const mask = b.subarray(at, at + 4);
  const payload = Buffer.alloc(len);
  for (let i = 0; i < len; i++) payload[i] = (b[at + 4 + i] as number) ^ (mask[i % 4] as number);
  return { opcode: (b[0] as number) & 0x0f, payload, used: at + 4 + len };
}
