/**
 * The setup checklist (docs/deploy.md, "The setup checklist"): what a fresh deployment still
 * needs, each with the exact variable or step that fixes it. Pure: built from facts the
 * caller gathered. `/api/health` reports it; the dashboard and the sign-in page show it.
 */

import { type HobbyFit, overBy } from "./hobby-fit";

/**
 * How long the checklist reuses a platform's (and our own URL's) answer: health may be polled,
 * and each answer costs a call to the platform. The register fix says so, because a webhook
 * registered a moment ago still reads "not registered" until the answer expires.
 */
export const SETUP_ANSWER_CACHE_MS = 60_000;

export interface SetupItem {
  id: string;
  label: string;
  ok: boolean;
  /** The check could not decide (it timed out): neither done nor to do, and no fix offered. */
  unknown?: true;
  /** "required": the deployment does not work without it; "recommended": it works, worse. */
  need: "required" | "recommended";
  detail: string;
  /** What to set or do when not ok (variable names, never values); null when ok. */
  fix: string | null;
}

export interface CheckResult {
  ok: boolean;
  detail: string;
  /** No answer in time: says nothing about what was checked (check-outcome.ts). */
  unknown?: true;
}

export interface SetupFacts {
  onVercel: boolean;
  /** Problems reading the environment (malformed values, a missing store on Vercel). */
  envProblems: string[];
  /** ClawRun's secrets the environment does not give (locally they are generated). */
  missingSecrets: string[];
  /** null: no store could be built (see envProblems). */
  store: { description: string; check: CheckResult } | null;
  provider: { name: string; check: CheckResult; missingEnv: string[] };
  publicUrl: { url: string | null; reachable: CheckResult | null };
  /** Cron jobs in clawrun.json and how they are woken for. */
  cron: { jobs: number; scheduler: "qstash" | "local-timer" | "daily-cron" };
  channels: {
    name: string;
    missingEnv: string[];
    /** null: nothing to register, or not known (status could not be read). */
    webhookRegistered: boolean | null;
    detail: string;
  }[];
  /**
   * On the vercel provider: the agents' estimated month against the free plans (hobby-fit.ts);
   * null elsewhere (no free plan to outgrow) or when the config could not be read.
   */
  freePlan: HobbyFit | null;
}

const STORE_FIX =
  "attach Upstash Redis from the Vercel Marketplace (sets KV_REST_API_URL and KV_REST_API_TOKEN), or set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, or REDIS_URL";
const SECRET_LABELS: Record<string, string> = {
  ADMIN_SECRET: "operator sign-in secret",
  CRON_SECRET: "cron secret",
  CLAWRUN_SECRET: "heartbeat signing secret",
  CLAWRUN_WEBHOOK_SECRET: "generic webhook secret",
};

export function setupChecklist(f: SetupFacts): SetupItem[] {
  const items: SetupItem[] = [];
  const storeProblem = f.envProblems.find((p) => p.includes("store"));
  items.push({
    id: "store",
    label: "Store connected",
    need: "required",
    ok: f.store?.check.ok ?? false,
    detail: f.store
      ? `${f.store.description}: ${f.store.check.detail}`
      : (storeProblem ?? "no store could be built"),
    fix: f.store?.check.ok ? null : f.store ? "check the store's URL and token" : STORE_FIX,
  });
  const otherProblems = f.envProblems.filter((p) => p !== storeProblem);
  if (otherProblems.length > 0) {
    items.push({
      id: "environment",
      label: "Environment variables well-formed",
      need: "required",
      ok: false,
      detail: otherProblems.join("; "),
      fix: "correct the variables named",
    });
  }
  items.push({
    id: "provider",
    label: `Sandbox provider credentials (${f.provider.name})`,
    need: "required",
    ok: f.provider.check.ok,
    // When the provider's rule is the fix, the detail need not repeat it.
    detail:
      !f.provider.check.ok && f.provider.check.detail.startsWith("environment:")
        ? "credentials not set"
        : f.provider.check.detail,
    fix: providerFix(f.provider),
  });
  for (const name of Object.keys(SECRET_LABELS)) {
    const missing = f.missingSecrets.includes(name);
    items.push({
      id: `secret:${name}`,
      label: `${name} (${SECRET_LABELS[name]})`,
      need: "required",
      ok: !missing,
      detail: missing
        ? "not set"
        : f.onVercel
          ? "set"
          : "set, or generated in .clawrun/secrets.json",
      fix: missing ? `set ${name} to at least 16 random characters (openssl rand -hex 32)` : null,
    });
  }
  items.push(publicUrlItem(f));
  items.push(cronItem(f));
  if (f.freePlan) items.push(freePlanItem(f.freePlan));
  for (const c of f.channels) {
    items.push({
      id: `channel:${c.name}:env`,
      label: `${c.name}: secrets present`,
      need: "required",
      ok: c.missingEnv.length === 0,
      detail: c.missingEnv.length === 0 ? "all set" : `missing ${c.missingEnv.join(", ")}`,
      fix: c.missingEnv.length === 0 ? null : `set ${c.missingEnv.join(", ")}`,
    });
    if (c.webhookRegistered !== null || c.missingEnv.length > 0) {
      items.push({
        id: `channel:${c.name}:webhook`,
        label: `${c.name}: webhook registered`,
        need: "required",
        ok: c.webhookRegistered === true,
        detail: c.detail,
        fix:
          c.webhookRegistered === true
            ? null
            : `run: npx clawrun channels register ${c.name} (pointed at this deployment: CLAWRUN_URL, ADMIN_SECRET) or the Register webhook button; the platform's answer is kept ${SETUP_ANSWER_CACHE_MS / 1000} s, so a registration shows here up to ${SETUP_ANSWER_CACHE_MS / 1000} s later`,
      });
    }
  }
  return items;
}

const PUBLIC_URL_FIX_VERCEL =
  "set CLAWRUN_PUBLIC_URL (on Vercel the production domain is used; with Deployment Protection on, also set VERCEL_AUTOMATION_BYPASS_SECRET)";
const PUBLIC_URL_FIX_LOCAL =
  "only needed when sandboxes or platforms must reach this machine from elsewhere: set CLAWRUN_PUBLIC_URL to that address";

/**
 * On Vercel the sidecars and platforms reach the deployment only through its public URL, so it
 * is required. Locally the URL defaults to this server's own loopback address, which the local
 * provider's sidecars use, so it is only recommended. A check that timed out is unknown.
 */
function publicUrlItem(f: SetupFacts): SetupItem {
  const base = {
    id: "public-url",
    label: "Public URL reachable",
    need: f.onVercel ? ("required" as const) : ("recommended" as const),
  };
  const r = f.publicUrl.reachable;
  if (!f.publicUrl.url)
    return {
      ...base,
      ok: false,
      detail: "no public URL: sidecars and platforms cannot reach this deployment",
      fix: f.onVercel ? PUBLIC_URL_FIX_VERCEL : PUBLIC_URL_FIX_LOCAL,
    };
  const detail = `${f.publicUrl.url}: ${r?.detail ?? "not checked"}`;
  if (r?.ok) return { ...base, ok: true, detail, fix: null };
  if (!r || r.unknown) return { ...base, ok: false, unknown: true, detail, fix: null };
  return {
    ...base,
    ok: false,
    detail,
    fix: f.onVercel ? PUBLIC_URL_FIX_VERCEL : PUBLIC_URL_FIX_LOCAL,
  };
}

function providerFix(p: SetupFacts["provider"]): string | null {
  if (p.check.ok) return null;
  if (p.missingEnv.length > 0) return `set ${p.missingEnv.join(", ")}`;
  // The provider's own rule names the variables (e.g. "needs VERCEL_OIDC_TOKEN or all of …").
  const rule = /^environment: (.*?)(?: \(the \w+ provider needs it\))?$/m.exec(p.check.detail);
  return rule?.[1] ?? "check the provider's credentials";
}

function cronItem(f: SetupFacts): SetupItem {
  const base = { id: "cron", label: "Cron jobs woken on time", need: "recommended" as const };
  if (f.cron.jobs === 0)
    return { ...base, ok: true, detail: "no cron jobs in clawrun.json", fix: null };
  if (f.cron.scheduler === "qstash")
    return { ...base, ok: true, detail: "QStash wakes the agent for each job", fix: null };
  if (f.cron.scheduler === "local-timer")
    return { ...base, ok: true, detail: "the server's own timer wakes the agent", fix: null };
  return {
    ...base,
    ok: false,
    detail:
      "cron jobs fire at most daily on this plan: only the daily Vercel Cron and incoming messages wake a sleeping agent",
    fix: "set QSTASH_TOKEN, QSTASH_CURRENT_SIGNING_KEY and QSTASH_NEXT_SIGNING_KEY (Upstash QStash), or on Vercel Pro tighten the schedule in vercel.json",
  };
}

/**
 * A warning, not an error: a paid plan (Vercel Pro, Upstash pay-as-you-go) runs past the free
 * limits; on Hobby, sandbox creation pauses and an Upstash free database refuses commands
 * (docs/several-agents.md, "How many agents fit the free plans").
 */
function freePlanItem(fit: HobbyFit): SetupItem {
  const base = {
    id: "free-plan",
    label: `${fit.agents} agent${fit.agents === 1 ? "" : "s"} within the free plans (estimate)`,
    need: "recommended" as const,
  };
  if (fit.over.length === 0) {
    const top = [...fit.limits].sort((a, b) => b.share - a.share)[0];
    const detail = top
      ? `the estimate stays within every free limit (highest: ${top.label}, ${Math.round(top.share * 100)} %)`
      : "the estimate stays within every free limit";
    return { ...base, ok: true, detail, fix: null };
  }
  return {
    ...base,
    ok: false,
    detail: `estimated over ${fit.over.map((l) => `${l.label}: ${overBy(l)}`).join("; ")}`,
    fix: 'nothing to do on a paid plan (Vercel Pro, Upstash pay-as-you-go); to stay on the free plans, run fewer agents, a shorter sandbox.activeDuration or fewer cron jobs (docs/several-agents.md, "How many agents fit the free plans")',
  };
}

/** Whether everything the deployment needs is in place (recommended items may be open). */
export function setupComplete(items: readonly SetupItem[]): boolean {
  // An unknown item (a check that timed out) does not make the deployment unready: /api/health
  // must not answer 503 because this machine was slow to answer itself.
  return items.every((i) => i.ok || i.unknown || i.need === "recommended");
}
