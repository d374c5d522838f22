import { getContext } from "./context";

export interface HealthCheck {
  ok: boolean;
  detail: string;
}

export interface HealthReport {
  ok: boolean;
  version: string;
  uptimeSeconds: number;
  checks: Record<string, HealthCheck>;
}

const processStartedAt = Date.now();

/** Readiness of the app and each dependency; `ok` only when every check passes. */
export async function checkHealth(now = Date.now()): Promise<HealthReport> {
  const checks: Record<string, HealthCheck> = {};
  let version = "unknown";
  try {
    const ctx = await getContext();
    version = ctx.version;
    checks.config = {
      ok: true,
      detail: ctx.config.path ? `loaded ${ctx.config.path}` : "no clawrun.json: using defaults",
    };
    checks.secrets = { ok: true, detail: "all secrets present" };
  } catch (err) {
    checks.context = { ok: false, detail: (err as Error).message };
  }
  const ok = Object.values(checks).every((c) => c.ok);
  return { ok, version, uptimeSeconds: Math.round((now - processStartedAt) / 1000), checks };
}
