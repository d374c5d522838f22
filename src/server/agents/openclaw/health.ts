import type { DaemonTransport } from "../types";

/**
 * OpenClaw's readiness probe (docs/gateway/health.md in the openclaw package): `GET /readyz`
 * answers 200 `{ "ready": true, ... }` once start-up is complete (agent databases admitted,
 * channels ready) and 503 before; `/healthz` only says the HTTP server is up. Unauthenticated.
 */
export async function probeOpenClawReady(
  door: DaemonTransport,
  signal: AbortSignal,
): Promise<boolean> {
  try {
    const res = await door.fetch("/readyz", { signal });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}
