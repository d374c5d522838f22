import {
  type GatewayRpcAnswer,
  type GatewayRpcRequest,
  gatewayRpcError,
} from "../protocol/gateway-rpc";
import { openWebSocket, type WebSocketConnection } from "./ws-client";

/** The largest frame accepted from the daemon (OpenClaw's hello carries its method list). */
export const GATEWAY_RPC_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

const CONNECT_ID = "clawrun-connect";
const CALL_ID = "clawrun-call";

/**
 * One call over the daemon's WebSocket in OpenClaw's gateway frames: wait for the
 * `connect.challenge` event, send `connect` with ClawRun's params, then the request, and return
 * the response frame of the same id (events in between are skipped). Rejects when the daemon
 * cannot be reached (WebSocketUnreachableError), breaks the exchange, or runs out of time.
 */
export async function gatewayRpc(
  daemon: { host: string; port: number },
  call: GatewayRpcRequest,
): Promise<GatewayRpcAnswer> {
  const signal = AbortSignal.timeout(call.timeoutMs);
  const ws = await openWebSocket({
    ...daemon,
    path: call.path,
    maxMessageBytes: GATEWAY_RPC_MAX_MESSAGE_BYTES,
    signal,
  });
  try {
    await waitFor(ws, (f) => f.type === "event" && f.event === "connect.challenge");
    ws.send(
      JSON.stringify({ type: "req", id: CONNECT_ID, method: "connect", params: call.connect }),
    );
    const hello = await waitFor(ws, (f) => f.type === "res" && f.id === CONNECT_ID);
    if (hello.ok !== true)
      return { ok: false, stage: "connect", error: gatewayRpcError(hello.error) };
    ws.send(JSON.stringify({ type: "req", id: CALL_ID, method: call.method, params: call.params }));
    const res = await waitFor(ws, (f) => f.type === "res" && f.id === CALL_ID);
    return res.ok === true
      ? { ok: true, payload: res.payload }
      : { ok: false, stage: "call", error: gatewayRpcError(res.error) };
  } finally {
    ws.close();
  }
}

type Frame = Record<string, unknown>;

async function waitFor(ws: WebSocketConnection, match: (f: Frame) => boolean): Promise<Frame> {
  for (;;) {
    const text = await ws.next();
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      throw new Error(`the daemon sent a message that is not JSON: ${text.slice(0, 80)}`);
    }
    if (typeof frame === "object" && frame !== null && match(frame as Frame)) return frame as Frame;
  }
}
