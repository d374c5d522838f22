import { isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { ClawrunError } from "../protocol/clawrun-error";
import { LIFECYCLE, type LifecycleTimings } from "./constants";
import { formatIssues } from "./format-issues";
import { type StoreSettings, selectStore, VERCEL_STORE_MISSING } from "./store-env";

/**
 * The only reader of process.env. Everything else receives an `AppEnv`.
 * Secrets that are missing here are filled in by `secrets.ts` (generated locally, required on Vercel).
 */

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const secret = optionalString.refine((v) => v === undefined || v.length >= 16, {
  error: "expected at least 16 characters",
});

const httpUrl = optionalString.refine((v) => v === undefined || /^https?:\/\/[^\s]+$/.test(v), {
  error: "expected an http(s) URL",
});

const timingKeys = Object.keys(LIFECYCLE) as (keyof LifecycleTimings)[];
const timingsSchema = z.strictObject(
  Object.fromEntries(timingKeys.map((k) => [k, z.number().int().positive().optional()])) as Record<
    keyof LifecycleTimings,
    z.ZodOptional<z.ZodNumber>
  >,
);

const envSchema = z.object({
  CLAWRUN_SECRET: secret,
  ADMIN_SECRET: secret,
  CRON_SECRET: secret,
  CLAWRUN_WEBHOOK_SECRET: secret,
  CLAWRUN_PUBLIC_URL: httpUrl,
  QSTASH_TOKEN: optionalString,
  QSTASH_URL: httpUrl,
  QSTASH_CURRENT_SIGNING_KEY: optionalString,
  QSTASH_NEXT_SIGNING_KEY: optionalString,
  VERCEL_AUTOMATION_BYPASS_SECRET: optionalString,
  CLAWRUN_STATE_DIR: optionalString,
  CLAWRUN_CONFIG: optionalString,
  CLAWRUN_TIMINGS: optionalString,
  CLAWRUN_LOCAL_TICK: optionalString.refine((v) => v === undefined || v === "0" || v === "1", {
    error: 'expected "0" or "1"',
  }),
  CLAWRUN_ON_EXIT: optionalString.refine((v) => v === undefined || v === "sleep" || v === "keep", {
    error: 'expected "sleep" or "keep"',
  }),
  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .optional()
    .catch(undefined),
  PORT: optionalString.refine((v) => v === undefined || /^\d{1,5}$/.test(v), {
    error: "expected a port number",
  }),
  VERCEL: optionalString,
  VERCEL_PROJECT_PRODUCTION_URL: optionalString,
  NODE_ENV: optionalString,
});

export type { StoreSettings };

export interface SchedulerSettings {
  kind: "qstash";
  token: string;
  /** QSTASH_URL (the region's API, or a test server); QStash's default when absent. */
  baseUrl: string | null;
  /** Callbacks are verified with both keys, so a key rotation never drops a wake. */
  currentSigningKey: string;
  nextSigningKey: string;
}

export const SECRET_NAMES = [
  "CLAWRUN_SECRET",
  "ADMIN_SECRET",
  "CRON_SECRET",
  "CLAWRUN_WEBHOOK_SECRET",
] as const;
export type SecretName = (typeof SECRET_NAMES)[number];

export interface AppEnv {
  onVercel: boolean;
  production: boolean;
  stateDir: string;
  configPath: string;
  /**
   * URL the sidecar posts heartbeats to and platforms call: CLAWRUN_PUBLIC_URL, else on Vercel
   * the production domain (never VERCEL_URL: per-deployment URLs sit behind Deployment
   * Protection); null on Vercel when nothing tells us.
   */
  publicUrl: string | null;
  /**
   * VERCEL_AUTOMATION_BYPASS_SECRET: lets platforms and the sidecar through Deployment
   * Protection (docs/deploy.md, "Deployment Protection"). Null when protection is off.
   */
  protectionBypass: string | null;
  /** A one-shot scheduler for wakes while asleep (QStash), or null: the daily cron only. */
  scheduler: SchedulerSettings | null;
  store: StoreSettings;
  /** Secrets given in the environment; missing ones are resolved by secrets.ts. */
  givenSecrets: Partial<Record<SecretName, string>>;
  logLevel: string;
  /** Test-only shortening of lifecycle internals (CLAWRUN_TIMINGS); empty in normal runs. */
  timingOverrides: Partial<LifecycleTimings>;
  /** In-process reconcile tick: on by default locally, off on Vercel (lazy ticks, daily cron, QStash wakes). */
  localTick: boolean;
  /**
   * What a server that runs its own tick does with a running agent when it is stopped
   * (Ctrl-C, SIGTERM): "sleep" (snapshot + stop, the default) or "keep" (say what keeps
   * running and until when). CLAWRUN_ON_EXIT.
   */
  onExit: "sleep" | "keep";
  /** Basics sandbox processes inherit on the local provider (never secrets). */
  hostEnv: { PATH: string; LANG?: string; TZ?: string };
  /** Reads a variable for the agent's `{ "fromEnv": ... }` values; ClawRun's own secrets are refused. */
  passthrough(name: string): string | undefined;
  /**
   * Parses the variables a provider or channel declared (its envSchema). `extra` supplies
   * values that may come from elsewhere (ClawRun's generated secrets), the environment wins.
   */
  moduleEnv<T>(schema: z.ZodType<T>, extra?: Record<string, string>): ModuleEnvResult<T>;
  /**
   * moduleEnv for one agent's own variables (docs/several-agents.md): `NAME__<SUFFIX>` is read as
   * NAME and named so when missing. Unsuffixed variables are not read, so a second agent never
   * borrows the first one's bot token.
   */
  agentModuleEnv(suffix: string): AppEnv["moduleEnv"];
}

export type ModuleEnvResult<T> =
  | { ok: true; value: T }
  /** `missing`: variables that are not set; `problems`: one line each, naming the variable. */
  | { ok: false; missing: string[]; problems: string[] };

export class EnvError extends ClawrunError {
  static override readonly errorName = "EnvError";
  constructor(readonly problems: string[]) {
    super("misconfigured", problems.join("\n"), { status: 503 });
  }
}

/**
 * Where clawrun.json is: CLAWRUN_CONFIG (relative to cwd), else ./clawrun.json. Also what
 * `clawrun agents` edits, so it edits the file `config check` and the server read.
 */
export function configPathFrom(source: Record<string, string | undefined>, cwd: string): string {
  const given = source.CLAWRUN_CONFIG?.trim();
  return resolve(cwd, given ? given : "clawrun.json");
}

export function readEnv(
  source: Record<string, string | undefined> = process.env,
  cwd = process.cwd(),
): AppEnv {
  const { env, problems } = inspectEnv(source, cwd);
  if (!env || problems.length > 0) throw new EnvError(problems);
  return env;
}

/**
 * Like readEnv, but reports the problems beside what could be read instead of throwing, so
 * the setup checklist can say everything that is missing at once (`env` is null only when a
 * value is malformed; a missing store leaves `store` at sqlite and names the problem).
 */
export function inspectEnv(
  source: Record<string, string | undefined> = process.env,
  cwd = process.cwd(),
): { env: AppEnv | null; problems: string[] } {
  const parsed = envSchema.safeParse(source, { reportInput: false });
  if (!parsed.success)
    return { env: null, problems: formatIssues("environment", parsed.error.issues) };
  const e = parsed.data;
  const problems: string[] = [];
  const onVercel = e.VERCEL === "1";

  const store = selectStore(source, problems) ?? { kind: "sqlite" };
  if (onVercel && store.kind === "sqlite" && problems.length === 0)
    problems.push(VERCEL_STORE_MISSING);
  const scheduler = selectScheduler(e, problems);
  const timingOverrides = parseTimings(e.CLAWRUN_TIMINGS, problems);

  const givenSecrets: Partial<Record<SecretName, string>> = {};
  for (const name of SECRET_NAMES) {
    const value = e[name];
    if (value !== undefined) givenSecrets[name] = value;
  }
  const stateDir = e.CLAWRUN_STATE_DIR ?? ".clawrun";
  const port = e.PORT ?? "3000";
  const vercelUrl = e.VERCEL_PROJECT_PRODUCTION_URL
    ? `https://${e.VERCEL_PROJECT_PRODUCTION_URL}`
    : null;
  const ownSecrets = new Set<string>(SECRET_NAMES);

  const env: AppEnv = {
    onVercel,
    production: e.NODE_ENV === "production",
    stateDir: isAbsolute(stateDir) ? stateDir : resolve(cwd, stateDir),
    configPath: configPathFrom(source, cwd),
    publicUrl:
      (e.CLAWRUN_PUBLIC_URL ?? (onVercel ? vercelUrl : `http://127.0.0.1:${port}`))?.replace(
        /\/+$/,
        "",
      ) ?? null,
    store,
    protectionBypass: e.VERCEL_AUTOMATION_BYPASS_SECRET ?? null,
    scheduler,
    givenSecrets,
    logLevel: e.LOG_LEVEL ?? "info",
    timingOverrides,
    localTick: e.CLAWRUN_LOCAL_TICK ? e.CLAWRUN_LOCAL_TICK === "1" : !onVercel,
    onExit: e.CLAWRUN_ON_EXIT === "keep" ? "keep" : "sleep",
    hostEnv: {
      PATH: source.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      ...(source.LANG ? { LANG: source.LANG } : {}),
      ...(source.TZ ? { TZ: source.TZ } : {}),
    },
    passthrough: (name) => (ownSecrets.has(name) ? undefined : source[name]),
    moduleEnv: (schema, extra = {}) => parseModuleEnv(schema, { ...extra, ...nonEmpty(source) }),
    agentModuleEnv:
      (suffix) =>
      (schema, extra = {}) => {
        const own: Record<string, string> = {};
        for (const [k, v] of Object.entries(nonEmpty(source)))
          if (k.endsWith(suffix)) own[k.slice(0, -suffix.length)] = v;
        const result = parseModuleEnv(schema, { ...extra, ...own });
        if (result.ok) return result;
        return {
          ok: false,
          missing: result.missing.map((name) => `${name}${suffix}`),
          problems: result.problems.map((p) =>
            p.replace(/^environment: ([A-Za-z0-9_]+)/, `environment: $1${suffix}`),
          ),
        };
      },
  };
  return { env, problems };
}

function selectScheduler(
  e: z.output<typeof envSchema>,
  problems: string[],
): SchedulerSettings | null {
  if (!e.QSTASH_TOKEN) return null;
  const missing = (["QSTASH_CURRENT_SIGNING_KEY", "QSTASH_NEXT_SIGNING_KEY"] as const).filter(
    (k) => !e[k],
  );
  if (missing.length > 0) {
    problems.push(
      `environment: QSTASH_TOKEN is set but ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not (scheduled wakes are verified with the signing keys)`,
    );
    return null;
  }
  return {
    kind: "qstash",
    token: e.QSTASH_TOKEN,
    baseUrl: e.QSTASH_URL?.replace(/\/+$/, "") ?? null,
    currentSigningKey: e.QSTASH_CURRENT_SIGNING_KEY as string,
    nextSigningKey: e.QSTASH_NEXT_SIGNING_KEY as string,
  };
}

function parseTimings(raw: string | undefined, problems: string[]): Partial<LifecycleTimings> {
  if (!raw) return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    problems.push("environment: CLAWRUN_TIMINGS: expected a JSON object of millisecond numbers");
    return {};
  }
  const result = timingsSchema.safeParse(json);
  if (!result.success) {
    problems.push(...formatIssues("environment: CLAWRUN_TIMINGS", result.error.issues));
    return {};
  }
  return Object.fromEntries(Object.entries(result.data).filter(([, v]) => v !== undefined));
}

function nonEmpty(source: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(source)) if (v !== undefined && v.trim() !== "") out[k] = v;
  return out;
}

function parseModuleEnv<T>(
  schema: z.ZodType<T>,
  values: Record<string, string>,
): ModuleEnvResult<T> {
  const parsed = schema.safeParse(values, { reportInput: false });
  if (parsed.success) return { ok: true, value: parsed.data };
  const missing: string[] = [];
  const problems: string[] = [];
  for (const issue of parsed.error.issues) {
    const name = String(issue.path[0] ?? "");
    // A module's own rule (a "custom" issue) says why the variable is needed; keep it.
    const why = issue.code === "custom" ? ` (${issue.message})` : "";
    if (!name) problems.push(`environment: ${issue.message}`);
    else if (values[name] === undefined) {
      missing.push(name);
      problems.push(`environment: ${name} is not set${why}`);
    } else problems.push(`environment: ${name}: ${issue.message}`);
  }
  return { ok: false, missing: [...new Set(missing)], problems: [...new Set(problems)] };
}
