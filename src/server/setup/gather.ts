import { type AppEnv, SECRET_NAMES } from "../../config/env";
import { defaultProvider } from "../../config/environment-defaults";
import type { LoadedConfig } from "../../config/load-config";
import type { AppContext } from "../app-context";
import { findChannel } from "../channels";
import { BYPASS_PARAM } from "../channels/webhook-url";
import { agentConfigs, loadClawrunConfig } from "../compose/config-schema";
import { buildSetupProbe } from "../compose/context";
import { findProvider } from "../providers";
import { checkFailure } from "./check-outcome";
import {
  type CheckResult,
  SETUP_ANSWER_CACHE_MS,
  type SetupFacts,
  type SetupItem,
  setupChecklist,
} from "./checklist";
import { DEFAULT_USAGE, type HobbyFit, hobbyFit, usageConfigOf } from "./hobby-fit";
import { CHECK_TIMEOUT_MS, timedCheck, withTimeout } from "./timeout";

/** Platform APIs and our own URL are asked at most this often (the checklist's fix says so). */
const CACHE_MS = SETUP_ANSWER_CACHE_MS;
const cache = new Map<string, { at: number; value: unknown }>();

async function cached<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.value as T;
  const value = await fn();
  // An unknown answer (timed out) is asked again next time instead of being kept for a minute.
  if (!(value as Partial<CheckResult> | null)?.unknown) cache.set(key, { at: Date.now(), value });
  return value;
}

/** A failed set-up check: a timeout is "unknown", never "missing" (check-outcome.ts). */
function timed(fn: (signal: AbortSignal) => Promise<unknown>): Promise<CheckResult> {
  return timedCheck(fn, checkFailure);
}

/** GET <public URL>/api/health?live=1 (answered without checks), through Deployment Protection. */
function reachPublicUrl(env: AppEnv): Promise<CheckResult> | null {
  const base = env.publicUrl;
  if (!base) return null;
  const url = new URL(`${base}/api/health`);
  url.searchParams.set("live", "1");
  if (env.protectionBypass) url.searchParams.set(BYPASS_PARAM, env.protectionBypass);
  return cached(`reach:${base}`, () =>
    timed(async (signal) => {
      const res = await fetch(url, { signal, cache: "no-store" });
      if (!res.ok) throw new Error(`HTTP ${res.status} from ${base}/api/health`);
    }),
  );
}

function missingSecrets(env: AppEnv): string[] {
  return env.onVercel ? SECRET_NAMES.filter((n) => env.givenSecrets[n] === undefined) : [];
}

function cronFacts(env: AppEnv, jobs: number): SetupFacts["cron"] {
  const scheduler = env.scheduler ? "qstash" : env.localTick ? "local-timer" : "daily-cron";
  return { jobs, scheduler };
}

/**
 * On Vercel, every agent of clawrun.json against the free plans (docs/several-agents.md, "How
 * many agents fit the free plans"); null on other providers or when the file cannot be read
 * (the config item reports that).
 */
function freePlanOf(
  provider: string,
  config: LoadedConfig | (() => LoadedConfig) | null,
  store: string | undefined,
): HobbyFit | null {
  if (provider !== "vercel" || config === null) return null;
  try {
    const loaded = typeof config === "function" ? config() : config;
    const agents = agentConfigs(loaded).map((a) => usageConfigOf(a.name, a.loaded.config));
    return hobbyFit(agents, DEFAULT_USAGE, store === "upstash");
  } catch {
    return null;
  }
}

/** Checks the caller made already (health's store and provider checks), not repeated here. */
export interface KnownChecks {
  store: Promise<CheckResult>;
  provider: Promise<CheckResult>;
}

/** The checklist for this deployment, from the full context or, when that fails, a probe. */
export async function gatherSetup(
  ctx: AppContext | null,
  known: KnownChecks | null = null,
): Promise<SetupItem[]> {
  return setupChecklist(ctx ? await fromContext(ctx, known) : await fromProbe());
}

async function fromContext(
  ctx: Pick<AppContext, "channels" | "config" | "env" | "provider" | "store">,
  known: KnownChecks | null,
): Promise<SetupFacts> {
  const [storeCheck, providerCheck, reachable, channels] = await Promise.all([
    known?.store ?? timed(() => ctx.store.ping()),
    known?.provider ?? timed((signal) => ctx.provider.check(signal)),
    reachPublicUrl(ctx.env),
    Promise.all(
      [...ctx.channels.values()].map(async (c) => {
        try {
          const s = await cached(`channel:${c.name}`, () =>
            withTimeout((signal) => c.status(signal), CHECK_TIMEOUT_MS),
          );
          return {
            name: c.name,
            missingEnv: s.missingEnv,
            webhookRegistered: s.webhookRegistered,
            detail: s.detail,
          };
        } catch (err) {
          const detail = `could not read the status: ${(err as Error).message}`;
          return { name: c.name, missingEnv: [], webhookRegistered: false, detail };
        }
      }),
    ),
  ]);
  return {
    onVercel: ctx.env.onVercel,
    envProblems: [],
    missingSecrets: missingSecrets(ctx.env),
    store: { description: ctx.store.description, check: storeCheck },
    provider: { name: ctx.provider.name, check: providerCheck, missingEnv: [] },
    publicUrl: { url: ctx.env.publicUrl, reachable: reachable ?? null },
    cron: cronFacts(ctx.env, ctx.config.config.cron.length),
    channels,
    freePlan: freePlanOf(
      ctx.provider.name,
      () => loadClawrunConfig(ctx.env.configPath),
      ctx.env.store.kind,
    ),
  };
}

async function fromProbe(): Promise<SetupFacts> {
  const probe = buildSetupProbe();
  const env = probe.env;
  const cfg = probe.config?.config ?? null;
  const envProblems = [...probe.envProblems, ...(probe.configProblem ? [probe.configProblem] : [])];
  const providerName =
    cfg?.sandbox.provider ?? defaultProvider({ onVercel: env?.onVercel ?? false });
  const providerModule = findProvider(providerName);
  const providerEnv = env && providerModule ? env.moduleEnv(providerModule.envSchema) : null;
  try {
    const [storeCheck, providerCheck, reachable] = await Promise.all([
      probe.store ? timed(() => (probe.store as NonNullable<typeof probe.store>).ping()) : null,
      probe.provider
        ? timed((signal) => (probe.provider as NonNullable<typeof probe.provider>).check(signal))
        : Promise.resolve<CheckResult>({
            ok: false,
            detail: probe.providerProblem ?? "not built: fix the items above first",
          }),
      env ? reachPublicUrl(env) : null,
    ]);
    const given = env?.givenSecrets ?? {};
    return {
      onVercel: env?.onVercel ?? false,
      envProblems,
      missingSecrets: env ? missingSecrets(env) : [],
      store:
        probe.store && storeCheck
          ? { description: probe.store.description, check: storeCheck }
          : null,
      provider: {
        name: providerName,
        check: providerCheck,
        missingEnv: providerEnv && !providerEnv.ok ? providerEnv.missing : [],
      },
      publicUrl: { url: env?.publicUrl ?? null, reachable: reachable ?? null },
      cron: env ? cronFacts(env, cfg?.cron.length ?? 0) : { jobs: 0, scheduler: "daily-cron" },
      channels: Object.keys(cfg?.channels ?? {}).flatMap((name) => {
        const module = findChannel(name);
        if (!module || !env) return [];
        const r = env.moduleEnv(module.envSchema, given as Record<string, string>);
        const missingEnv = r.ok ? [] : r.missing;
        return [{ name, missingEnv, webhookRegistered: null, detail: "not checked yet" }];
      }),
      freePlan: freePlanOf(providerName, probe.config, env?.store.kind),
    };
  } finally {
    await probe.store?.close().catch(() => undefined);
  }
}
