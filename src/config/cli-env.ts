import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { EnvError } from "./env";
import { formatIssues } from "./format-issues";
import { readStoredSecrets } from "./secrets";

/**
 * Where the operator CLI finds the deployment and its secrets (docs/cli.md):
 * the URL from CLAWRUN_URL, else CLAWRUN_PUBLIC_URL, else this machine's server on PORT;
 * the secrets from the environment, else from a local run's `<CLAWRUN_STATE_DIR>/secrets.json`.
 */

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const httpUrl = optional.refine((v) => v === undefined || /^https?:\/\/[^\s]+$/.test(v), {
  error: "expected an http(s) URL",
});

const cliEnvSchema = z.object({
  CLAWRUN_URL: httpUrl,
  CLAWRUN_PUBLIC_URL: httpUrl,
  ADMIN_SECRET: optional,
  CLAWRUN_WEBHOOK_SECRET: optional,
  CLAWRUN_STATE_DIR: optional,
  PORT: optional.refine((v) => v === undefined || /^\d{1,5}$/.test(v), {
    error: "expected a port number",
  }),
});

export interface CliTarget {
  /** Base URL of the deployment, without a trailing slash. */
  url: string;
  /** Where the URL came from, for error messages ("CLAWRUN_URL", "--url", …). */
  urlSource: string;
  adminSecret: string | null;
  webhookSecret: string | null;
  /** Where a local run keeps its generated secrets (named when a secret is missing). */
  secretsFile: string;
}

export function readCliTarget(
  source: Record<string, string | undefined>,
  cwd: string,
  urlFlag?: string,
): CliTarget {
  const parsed = cliEnvSchema.safeParse(
    { ...source, ...(urlFlag === undefined ? {} : { CLAWRUN_URL: urlFlag }) },
    { reportInput: false },
  );
  if (!parsed.success) throw new EnvError(formatIssues("environment", parsed.error.issues));
  const e = parsed.data;
  const stateDir = e.CLAWRUN_STATE_DIR ?? ".clawrun";
  const dir = isAbsolute(stateDir) ? stateDir : resolve(cwd, stateDir);
  const stored = readStoredSecrets(dir);
  const [url, urlSource] = e.CLAWRUN_URL
    ? [e.CLAWRUN_URL, urlFlag === undefined ? "CLAWRUN_URL" : "--url"]
    : e.CLAWRUN_PUBLIC_URL
      ? [e.CLAWRUN_PUBLIC_URL, "CLAWRUN_PUBLIC_URL"]
      : [`http://127.0.0.1:${e.PORT ?? "3000"}`, "the local default"];
  return {
    url: url.replace(/\/+$/, ""),
    urlSource,
    adminSecret: e.ADMIN_SECRET ?? stored.ADMIN_SECRET ?? null,
    webhookSecret: e.CLAWRUN_WEBHOOK_SECRET ?? stored.CLAWRUN_WEBHOOK_SECRET ?? null,
    secretsFile: join(dir, "secrets.json"),
  };
}
