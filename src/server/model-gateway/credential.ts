import { randomBytes } from "node:crypto";
import { secretEquals } from "../../protocol/constant-time";
import { deriveKey } from "../../protocol/derive-key";
import type { InstanceState, InstanceStatus } from "../domain/instance-state";

/**
 * The per-sandbox model credential: the sandbox id and the boot it was issued for in clear (so
 * the gateway knows which secret to check) and an HMAC bound to both. Worthless outside
 * ClawRun: it only ever unlocks this gateway, and only while that sandbox is the agent's
 * current one in that same boot. The boot makes it rotate at every wake, also where a wake
 * resumes a sandbox that keeps its id (a persistent named sandbox).
 */
const PREFIX = "crm_";

/** Who a credential was issued to. */
export interface CredentialHolder {
  sandboxId: string;
  /** The random id of the bring-up it was issued at (InstanceState.bootId). */
  bootId: string;
}

/** A fresh boot id: base64url, so it never holds the credential's "." separator. */
export function newBootId(): string {
  return randomBytes(12).toString("base64url");
}

export function modelCredential(master: string, holder: CredentialHolder): string {
  const mac = deriveKey(master, `model/${holder.sandboxId}/${holder.bootId}`).toString("base64url");
  return `${PREFIX}${Buffer.from(holder.sandboxId).toString("base64url")}.${holder.bootId}.${mac}`;
}

/** Pure: whom a credential was made for, or null when it is malformed or forged. */
export function credentialHolder(master: string, credential: string): CredentialHolder | null {
  if (!credential.startsWith(PREFIX)) return null;
  const parts = credential.slice(PREFIX.length).split(".");
  if (parts.length !== 3) return null;
  const [encodedId = "", bootId = ""] = parts;
  const sandboxId = Buffer.from(encodedId, "base64url").toString();
  if (!sandboxId || !bootId) return null;
  const holder = { sandboxId, bootId };
  return secretEquals(credential, modelCredential(master, holder)) ? holder : null;
}

/** Statuses in which the sandbox's daemon may be answering a message (and so calling a model). */
const LIVE: ReadonlySet<InstanceStatus> = new Set(["starting", "running"]);

/**
 * Pure: whether a credential's holder is the agent's current sandbox, in its current boot,
 * while it may run. Anything else (a stopped or replaced sandbox, an earlier wake) is refused.
 */
export function holderIsCurrent(
  state: Pick<InstanceState, "status" | "sandboxId" | "bootId"> | null,
  holder: CredentialHolder,
): boolean {
  return (
    state !== null &&
    LIVE.has(state.status) &&
    state.sandboxId === holder.sandboxId &&
    state.bootId === holder.bootId
  );
}

/** The credential as either API sends it: OpenAI's bearer token or Anthropic's x-api-key. */
export function presentedCredential(headers: Headers): string | null {
  const key = headers.get("x-api-key");
  if (key) return key.trim();
  const m = /^Bearer\s+(.+)$/i.exec(headers.get("authorization")?.trim() ?? "");
  return m?.[1] ?? null;
}
