import { secretEquals } from "../../protocol/constant-time";
import { deriveKey } from "../../protocol/derive-key";

/**
 * The per-sandbox model credential: the sandbox id in clear (so the gateway knows which
 * secret to check) and an HMAC bound to it. Worthless outside ClawRun: it only ever unlocks
 * this gateway, and only while that sandbox is the agent's current one.
 */
const PREFIX = "crm_";

export function modelCredential(master: string, sandboxId: string): string {
  const mac = deriveKey(master, `model/${sandboxId}`).toString("base64url");
  return `${PREFIX}${Buffer.from(sandboxId).toString("base64url")}.${mac}`;
}

/** Pure: the sandbox a credential was made for, or null when it is malformed or forged. */
export function credentialSandbox(master: string, credential: string): string | null {
  if (!credential.startsWith(PREFIX)) return null;
  const dot = credential.indexOf(".", PREFIX.length);
  if (dot < 0) return null;
  const sandboxId = Buffer.from(credential.slice(PREFIX.length, dot), "base64url").toString();
  if (!sandboxId) return null;
  return secretEquals(credential, modelCredential(master, sandboxId)) ? sandboxId : null;
}

/** The credential as either API sends it: OpenAI's bearer token or Anthropic's x-api-key. */
export function presentedCredential(headers: Headers): string | null {
  const key = headers.get("x-api-key");
  if (key) return key.trim();
  const m = /^Bearer\s+(.+)$/i.exec(headers.get("authorization")?.trim() ?? "");
  return m?.[1] ?? null;
}
