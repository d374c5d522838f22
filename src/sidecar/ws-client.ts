import { request } from "node:http";
import type { Socket } from "node:net";
import {
  acceptFor,
  closePayload,
  encodeFrame,
  type Frame,
  FrameDecoder,
  OPCODES,
  websocketKey,
} from "./ws-frames";

/** Nothing accepted the connection (refused, reset before the upgrade): the daemon is down. */
export class WebSocketUnreachableError extends Error {
  override name = "WebSocketUnreachableError";
}

export interface WebSocketConnection {
  send(text: string): void;
  /** The next text message; rejects when the connection closes or fails first. */
  next(): Promise<string>;
  close(): void;
}

export interface OpenOptions {
  host: string;
  port: number;
  path: string;
  /** The largest message accepted (a larger one drops the connection). */
  maxMessageBytes: number;
  signal: AbortSignal;
}

/**
 * A minimal WebSocket client on node:http (the sidecar carries no dependencies): text messages
 * only, pings answered, no extensions. Enough for a short request/response exchange with a
 * daemon on loopback (gateway-rpc.ts).
 */
export function openWebSocket(o: OpenOptions): Promise<WebSocketConnection> {
  return new Promise((resolve, reject) => {
    const key = websocketKey();
    const req = request({
      host: o.host,
      port: o.port,
      path: o.path,
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": key,
      },
    });
    const onAbort = (): void => {
      req.destroy();
      reject(new Error("websocket: gave up before the upgrade"));
    };
    o.signal.addEventListener("abort", onAbort, { once: true });
    req.on("error", (err: NodeJS.ErrnoException) => {
      o.signal.removeEventListener("abort", onAbort);
      reject(
        err.code === "ECONNREFUSED" || err.code === "ECONNRESET"
          ? new WebSocketUnreachableError(`nothing accepts on ${o.host}:${o.port}: ${err.code}`)
          : err,
      );
    });
    req.on("response", (res) => {
      o.signal.removeEventListener("abort", onAbort);
      res.resume();
      reject(new Error(`websocket: the server answered ${res.statusCode} instead of upgrading`));
    });
    req.on("upgrade", (res, socket, head) => {
      o.signal.removeEventListener("abort", onAbort);
      if (res.headers["sec-websocket-accept"] !== acceptFor(key)) {
        socket.destroy();
        reject(new Error("websocket: the server's Sec-WebSocket-Accept does not match the key"));
        return;
      }
      resolve(connection(socket, head, o));
    });
    req.end();
  });
}

function connection(socket: Socket, head: Buffer, o: OpenOptions): WebSocketConnection {
  const decoder = new FrameDecoder(o.maxMessageBytes);
  const queue: string[] = [];
  const waiting: Array<{ resolve: (m: string) => void; reject: (e: Error) => void }> = [];
  let ended: Error | null = null;
  let parts: Buffer[] = [];
  let partBytes = 0;

  const fail = (err: Error): void => {
    if (ended) return;
    ended = err;
    for (const w of waiting.splice(0)) w.reject(err);
    socket.destroy();
  };
  const deliver = (text: string): void => {
    const w = waiting.shift();
    if (w) w.resolve(text);
    else queue.push(text);
  };
  const onFrame = (f: Frame): void => {
    if (f.opcode === OPCODES.ping) socket.write(encodeFrame(OPCODES.pong, f.payload));
    else if (f.opcode === OPCODES.close) {
      const code = f.payload.length >= 2 ? f.payload.readUInt16BE(0) : 1005;
      const reason = f.payload.subarray(2).toString("utf8");
      if (!socket.destroyed) socket.end(encodeFrame(OPCODES.close, closePayload(1000)));
      fail(new Error(`websocket: closed by the server (${code}${reason ? ` ${reason}` : ""})`));
    } else if (
      f.opcode === OPCODES.text ||
      f.opcode === OPCODES.binary ||
      f.opcode === OPCODES.continuation
    ) {
      partBytes += f.payload.length;
      if (partBytes > o.maxMessageBytes)
        throw new Error(`websocket: a message is over ${o.maxMessageBytes} bytes`);
      parts.push(f.payload);
      if (!f.fin) return;
      const message = Buffer.concat(parts).toString("utf8");
      parts = [];
      partBytes = 0;
      deliver(message);
    }
    // pong and unknown opcodes: nothing to do
  };
  const onData = (chunk: Buffer): void => {
    try {
      for (const f of decoder.push(chunk)) onFrame(f);
    } catch (err) {
      fail(err as Error);
    }
  };
  socket.on("data", onData);
  socket.on("error", (err) => fail(err));
  socket.on("close", () => fail(new Error("websocket: the connection closed")));
  o.signal.addEventListener("abort", () => fail(new Error("websocket: gave up waiting")), {
    once: true,
  });
  if (head.length > 0) onData(head);

  return {
    send(text) {
      if (ended) throw ended;
      socket.write(encodeFrame(OPCODES.text, Buffer.from(text, "utf8")));
    },
    next() {
      const m = queue.shift();
      if (m !== undefined) return Promise.resolve(m);
      if (ended) return Promise.reject(ended);
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    close() {
      if (ended) return;
      socket.end(encodeFrame(OPCODES.close, closePayload(1000)));
      ended = new Error("websocket: closed by the client");
      for (const w of waiting.splice(0)) w.reject(ended);
    },
  };
}
