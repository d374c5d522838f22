import { z } from "zod";
import type { DaemonTransport } from "../types";

/**
 * ZeroClaw's readiness: `GET /health` (unauthenticated) answers 200 with
 * `{ "status": "ok", "paired", "require_pairing", "runtime" }` once the gateway serves
 * (docs/agents/zeroclaw.md).
 */
const healthSchema = z.looseObject({
  status: z.string(),
  paired: z.boolean().optional(),
  require_pairing: z.boolean().optional(),
});

/** Pure: ready when the gateway says ok and, with pairing on, knows a token (ClawRun's). */
export function zeroclawHealthy(status: number, body: unknown): boolean {
  if (status !== 200) return false;
  const parsed = healthSchema.safeParse(body);
  if (!parsed.success || parsed.data.status !== "ok") return false;
  return parsed.data.require_pairing !== true || parsed.data.paired === true;
}

export async function probeZeroClaw(door: DaemonTransport, signal: AbortSignal): Promise<boolean> {
  try {
    const res = await door.fetch("/health", { signal });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return false;
    }
    return zeroclawHealthy(res.status, body);
  } catch {
    return false;
  }
}
