import { attempt, type Parsed, stringRecord } from "./validate";

/**
 * Pure: the daemon environment the server hands the sidecar in CLAWRUN_DAEMON_ENV (a JSON
 * object of strings); unset or empty is `{}`. Hand-checked like every sidecar payload.
 */
export function parseDaemonEnv(raw: string | undefined): Parsed<Record<string, string>> {
  if (raw === undefined || raw === "") return { ok: true, value: {} };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    return { ok: false, error: `not JSON: ${(err as Error).message}` };
  }
  return attempt(() => stringRecord({ env: json }, "env", ""));
}
