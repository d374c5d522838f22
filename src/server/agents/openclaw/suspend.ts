import { randomUUID } from "node:crypto";
import type { GatewayRpcAnswer } from "../../../protocol/gateway-rpc";
import type { DaemonTransport, SleepPrepareAnswer } from "../types";

/**
 * OpenClaw's cooperative suspension (openclaw@2026.9.6 docs/gateway/external-apps.md, "host-
 * neutral suspension handshake"): `gateway.suspend.prepare` with a unique `requestId` answers
 * `busy` (`retryAfterMs`, `blockers`) or `ready` (`suspensionId`, `expiresAtMs`: the gateway
 * stopped admitting work until then, two minutes); `gateway.suspend.resume` with that id
 * reopens it. Only over the gateway's WebSocket (an HTTP route exists only as an opt-in plugin),
 * so ClawRun calls it through the door's `/gateway-rpc`.
 */

/** The gateway's WebSocket protocol version (docs/gateway/protocol/versioning.md: v4). */
export const OPENCLAW_PROTOCOL_VERSION = 4;

const RPC_TIMEOUT_MS = 10_000;

/**
 * Pure: the `connect` params. ClawRun connects as a local backend client
 * (`gateway-client`/`backend`) with the shared gateway token: on a direct loopback connection
 * that path needs no device identity and keeps the requested scopes
 * (docs/gateway/protocol/handshake.md), and the door connects from loopback inside the sandbox.
 * `prepare` and `resume` need `operator.admin`, `status` `operator.read`.
 */
export function openclawConnectParams(token: string): Record<string, unknown> {
  return {
    minProtocol: OPENCLAW_PROTOCOL_VERSION,
    maxProtocol: OPENCLAW_PROTOCOL_VERSION,
    client: { id: "gateway-client", version: "clawrun", platform: "linux", mode: "backend" },
    role: "operator",
    scopes: ["operator.admin", "operator.read"],
    auth: { token },
  };
}

/**
 * Pure: `prepare`'s answer as ClawRun's consent. `ready`: the lease runs until `expiresAtMs`
 * (the gateway's clock, which is the sandbox's). `busy` (work in flight) and the retryable
 * refusals (another lease held, scheduler recovery, start-up not finished) mean "not now".
 * Anything else is no answer (throws): the rest policy bounds how long that may last.
 */
export function prepareAnswer(answer: GatewayRpcAnswer, now: number): SleepPrepareAnswer {
  if (!answer.ok) {
    if (answer.error.retryable && answer.error.code === "UNAVAILABLE")
      return {
        ready: false,
        retryAfterMs: answer.error.retryAfterMs ?? 20_000,
        blockers: [answer.error.message],
      };
    throw new Error(
      `OpenClaw refused gateway.suspend.prepare at ${answer.stage}: ${answer.error.code} ${answer.error.message}`,
    );
  }
  const p = (answer.payload ?? {}) as Record<string, unknown>;
  if (
    p.status === "ready" &&
    typeof p.suspensionId === "string" &&
    typeof p.expiresAtMs === "number"
  )
    return { ready: true, leaseMs: Math.max(0, p.expiresAtMs - now), suspensionId: p.suspensionId };
  if (p.status === "busy" || p.status === "draining")
    return {
      ready: false,
      retryAfterMs: typeof p.retryAfterMs === "number" ? p.retryAfterMs : 20_000,
      blockers: Array.isArray(p.blockers) ? p.blockers.map(blockerText) : [],
    };
  throw new Error(
    `OpenClaw's gateway.suspend.prepare answered an unknown shape: ${JSON.stringify(p).slice(0, 200)}`,
  );
}

function blockerText(b: unknown): string {
  const o = (typeof b === "object" && b !== null ? b : {}) as Record<string, unknown>;
  return typeof o.message === "string" ? o.message : String(o.kind ?? "work in flight");
}

export async function prepareOpenClawSleep(
  door: DaemonTransport,
  token: string,
  signal: AbortSignal,
  now: () => number = Date.now,
): Promise<SleepPrepareAnswer> {
  const answer = await call(door, token, "gateway.suspend.prepare", signal, {
    // Unique per ask: a repeated id would renew a lease this ask did not take.
    requestId: `clawrun-${randomUUID()}`,
    terminalPolicy: "preserve",
  });
  return prepareAnswer(answer, now());
}

/**
 * Reopens the gateway after a suspension ClawRun took. Without an id there is nothing to do: a
 * gateway started from files (every wake here) holds no suspension, and resume requires one.
 */
export async function resumeOpenClaw(
  door: DaemonTransport,
  token: string,
  signal: AbortSignal,
  suspensionId?: string,
): Promise<void> {
  if (!suspensionId) return;
  const answer = await call(door, token, "gateway.suspend.resume", signal, { suspensionId });
  if (!answer.ok)
    throw new Error(
      `OpenClaw refused gateway.suspend.resume: ${answer.error.code} ${answer.error.message}`,
    );
}

async function call(
  door: DaemonTransport,
  token: string,
  method: string,
  signal: AbortSignal,
  params: Record<string, unknown>,
): Promise<GatewayRpcAnswer> {
  if (!door.gatewayRpc) throw new Error(`${door.label} offers no gateway RPC`);
  return door.gatewayRpc(
    { path: "/", connect: openclawConnectParams(token), method, params, timeoutMs: RPC_TIMEOUT_MS },
    signal,
  );
}
