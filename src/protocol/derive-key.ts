import { createHmac } from "node:crypto";

/**
 * Purpose-bound keys from the master secret, so one leaked derived key (a sandbox's heartbeat
 * secret, say) reveals neither the master nor any other key.
 */
export function deriveKey(master: string, purpose: string): Buffer {
  return createHmac("sha256", master).update(`clawrun/v1/${purpose}`).digest();
}

/** Per-sandbox heartbeat secret: good for that sandbox only (issue: a leak is contained). */
export function heartbeatSecret(master: string, sandboxId: string): string {
  return deriveKey(master, `heartbeat/${sandboxId}`).toString("base64url");
}
