import { getContext } from "./context";

export interface HealthCheck {
  ok: boolean;
  detail: string;
}

export interface HealthReport {
  ok: boolean;
  version: string;
  uptimeSeconds: number;
  instance: { name: string; status: string; since: number | null; sandboxId: string | null } | null;
  checks: Record<string, HealthCheck>;
}

const processStartedAt = Date.now();

/** Readiness of the app and each dependency; `ok` only when every check passes. */
export async function checkHealth(now = Date.now()): Promise<HealthReport> {
  const checks: Record<string, HealthCheck> = {};
  const report: HealthReport = {
    ok: false,
    version: "unknown",
    uptimeSeconds: Math.round((now - processStartedAt) / 1000),
    instance: null,
    checks,
  };
  let ctx: Awaited<ReturnType<typeof getContext>>;
  try {
    ctx = await getContext();
  } catch (err) {
    checks.config = { ok: false, detail: (err as Error).message };
    return report;
  }
  report.version = ctx.version;
  checks.config = {
    ok: true,
    detail: ctx.config.path ? `loaded ${ctx.config.path}` : "no clawrun.json: using defaults",
  };
  const [store, provider] = await Promise.all([
    timed(() => ctx.store.ping()),
    timed(() => ctx.provider.check()),
  ]);
  checks.store = { ok: store.ok, detail: `${ctx.store.description}: ${store.detail}` };
  checks.provider = { ok: provider.ok, detail: `${ctx.provider.name}: ${provider.detail}` };
  if (store.ok) {
    try {
      const state = await ctx.manager.getState();
      report.instance = {
        name: ctx.config.config.instance.name,
        status: state.value.status,
        since: state.value.since || null,
        sandboxId: state.value.sandboxId,
      };
    } catch (err) {
      checks.state = { ok: false, detail: (err as Error).message };
    }
  }
  report.ok = Object.values(checks).every((c) => c.ok);
  return report;
}

async function timed(fn: () => Promise<void>): Promise<HealthCheck> {
  const started = Date.now();
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timed out after 3 s")), 3_000)),
    ]);
    return { ok: true, detail: `ok in ${Date.now() - started} ms` };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
}
