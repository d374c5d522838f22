import { SANDBOX_PORTS } from "../../protocol/constants";
import { type SidecarHealth, sidecarHealthSchema } from "../../protocol/health";
import type { ManagedSandbox } from "../providers/types";

/** The sidecar's health URL in a sandbox (its one exposed port). */
export function sidecarHealthUrl(sandbox: Pick<ManagedSandbox, "domain">): string {
  return `${sandbox.domain(SANDBOX_PORTS.sidecar)}/health`;
}

/**
 * Asks the sidecar for its health once: its answer, or null when it does not answer in time
 * or answers something that is not the protocol.
 */
export async function probeSidecar(
  url: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<SidecarHealth | null> {
  try {
    const res = await fetch(url, {
      signal: signal
        ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
        : AbortSignal.timeout(timeoutMs),
    });
    const parsed = sidecarHealthSchema.safeParse(await res.json());
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Whether the sidecar is alive: a few tries a moment apart, so one dropped connection on a
 * busy machine does not count as a dead agent.
 */
export async function sidecarAnswers(
  sandbox: Pick<ManagedSandbox, "domain">,
  opts: { attempts?: number; intervalMs?: number; timeoutMs?: number } = {},
): Promise<boolean> {
  const attempts = opts.attempts ?? 3;
  const url = sidecarHealthUrl(sandbox);
  for (let i = 0; i < attempts; i++) {
    if (await probeSidecar(url, opts.timeoutMs ?? 2_000)) return true;
    if (i < attempts - 1) await new Promise((r) => setTimeout(r, opts.intervalMs ?? 500));
  }
  return false;
}
