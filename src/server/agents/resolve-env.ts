import { SECRET_NAMES } from "../../config/env";
import type { EnvValue } from "../../config/schema";

/**
 * Turns clawrun.json's agent env (literals and `{ "fromEnv": "X" }`) into plain values.
 * A reference to an unset variable is an error naming both keys, not an empty string.
 */
export function resolveAgentEnv(
  env: Record<string, EnvValue>,
  passthrough: (name: string) => string | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  const missing: string[] = [];
  for (const [key, value] of Object.entries(env)) {
    if (typeof value === "string") {
      out[key] = value;
      continue;
    }
    if ((SECRET_NAMES as readonly string[]).includes(value.fromEnv)) {
      missing.push(
        `agent.env.${key}: ${value.fromEnv} is ClawRun's own secret and never goes to the agent`,
      );
      continue;
    }
    const resolved = passthrough(value.fromEnv);
    if (resolved === undefined)
      missing.push(`agent.env.${key}: environment variable ${value.fromEnv} is not set`);
    else out[key] = resolved;
  }
  if (missing.length > 0) throw new Error(missing.map((m) => `clawrun.json: ${m}`).join("\n"));
  return out;
}
