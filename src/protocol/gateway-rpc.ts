import {
  attempt,
  type Fields,
  integer,
  object,
  optional,
  type Parsed,
  PayloadError,
  string,
} from "./validate";

/**
 * `POST /gateway-rpc` on the door (docs/sidecar.md, "Gateway RPC"): one request over the
 * daemon's WebSocket in the frame shapes of OpenClaw's gateway protocol (docs/gateway/protocol
 * in the openclaw package: `{type:"req",id,method,params}` answered by `{type:"res",id,ok,
 * payload|error}`, after a `connect` request that follows the gateway's `connect.challenge`
 * event). ClawRun needs it where the daemon offers a method only over its WebSocket (the
 * suspend protocol) and the daemon's port is reachable only from inside the sandbox.
 * ClawRun's own call: never the agent's activity.
 */
export interface GatewayRpcRequest {
  /** Path of the WebSocket on the daemon's loopback port ("/" for OpenClaw's gateway). */
  path: string;
  /** The `connect` request's params (protocol range, client, role, scopes, auth). */
  connect: Record<string, unknown>;
  method: string;
  params: Record<string, unknown>;
  /** How long the whole exchange (open, handshake, call) may take. */
  timeoutMs: number;
}

/** The door's answer (200): the daemon's response frame to `method`, or the connect's refusal. */
export type GatewayRpcAnswer =
  | { ok: true; payload: unknown }
  | { ok: false; stage: "connect" | "call"; error: GatewayRpcError };

/** The gateway's error shape (`{ code, message, details?, retryable?, retryAfterMs? }`). */
export interface GatewayRpcError {
  code: string;
  message: string;
  retryable?: boolean;
  retryAfterMs?: number;
  details?: unknown;
}

export const GATEWAY_RPC_MAX_TIMEOUT_MS = 60_000;

const KEYS = ["path", "connect", "method", "params", "timeoutMs"] as const;

export function parseGatewayRpcRequest(value: unknown): Parsed<GatewayRpcRequest> {
  return attempt(() => {
    const o = object(value, "", KEYS);
    const path = string(o, "path", "", { min: 1, max: 512 });
    if (!path.startsWith("/")) throw new PayloadError("path", 'expected a path starting with "/"');
    return {
      path,
      connect: object(o.connect, "connect"),
      method: string(o, "method", "", { min: 1, max: 128 }),
      params: optional(o, "params", {} as Fields, (f, k) => object(f[k], k)),
      timeoutMs: integer(o, "timeoutMs", "", { min: 1, max: GATEWAY_RPC_MAX_TIMEOUT_MS }),
    };
  });
}

/** Pure: the gateway's error object from a response frame, with what ClawRun branches on. */
export function gatewayRpcError(value: unknown): GatewayRpcError {
  const o = (typeof value === "object" && value !== null ? value : {}) as Fields;
  const error: GatewayRpcError = {
    code: typeof o.code === "string" ? o.code : "UNKNOWN",
    message: typeof o.message === "string" ? o.message : "the gateway gave no message",
  };
  if (typeof o.retryable === "boolean") error.retryable = o.retryable;
  if (typeof o.retryAfterMs === "number" && Number.isFinite(o.retryAfterMs))
    error.retryAfterMs = o.retryAfterMs;
  if (o.details !== undefined) error.details = o.details;
  return error;
}

/** Pure: the door's answer as ClawRun reads it; rejects anything else. */
export function parseGatewayRpcAnswer(value: unknown): Parsed<GatewayRpcAnswer> {
  return attempt(() => {
    const o = object(value, "");
    if (o.ok === true) return { ok: true as const, payload: o.payload };
    if (o.ok !== false) throw new PayloadError("ok", "expected boolean");
    const stage = o.stage === "connect" ? ("connect" as const) : ("call" as const);
    return { ok: false as const, stage, error: gatewayRpcError(object(o.error, "error")) };
  });
}
