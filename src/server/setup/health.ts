import { getContext } from "../compose/context";
import { type SetupItem, setupComplete } from "./checklist";
import { gatherSetup } from "./gather";
import { CHECK_TIMEOUT_MS, timedCheck } from "./timeout";

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
  /** The setup checklist (docs/deploy.md): each missing item with the variable that fixes it. */
  setup: SetupItem[];
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
    setup: [],
  };
  let ctx: Awaited<ReturnType<typeof getContext>>;
  try {
    ctx = await getContext();
  } catch (err) {
    checks.config = { ok: false, detail: (err as Error).message };
    report.setup = await setupOrProblem(null, null);
    return report;
  }
  report.version = ctx.version;
  checks.config = {
    ok: true,
    detail: ctx.config.path ? `loaded ${ctx.config.path}` : "no clawrun.json: using defaults",
  };
  const storeCheck = timed(() => ctx.store.ping());
  const providerCheck = timed((signal) => ctx.provider.check(signal));
  // The checklist reuses these two checks (one provider API call per health request).
  const setup = setupOrProblem(ctx, { store: storeCheck, provider: providerCheck });
  const [store, provider] = await Promise.all([storeCheck, providerCheck]);
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
  report.setup = await setup;
  report.ok = Object.values(checks).every((c) => c.ok) && setupComplete(report.setup);
  return report;
}

function setupOrProblem(
  ctx: Parameters<typeof gatherSetup>[0],
  known: Parameters<typeof gatherSetup>[1],
): Promise<SetupItem[]> {
  return gatherSetup(ctx, known).catch((err: unknown): SetupItem[] => [
    {
      id: "setup",
      label: "Setup checklist",
      need: "required",
      ok: false,
      detail: `could not be gathered: ${(err as Error).message}`,
      fix: null,
    },
  ]);
}

/** Health says what went wrong in the error's own words, "timed out after 3 s" for a timeout. */
function timed(fn: (signal: AbortSignal) => Promise<void>): Promise<HealthCheck> {
  return timedCheck(
    fn,
    (err) => ({ ok: false, detail: (err as Error).message }),
    `timed out after ${CHECK_TIMEOUT_MS / 1000} s`,
  );
}
