import { z } from "zod";

/**
 * clawrun.json `sandbox.vercel`. Numbers and limits are Vercel's documented ones
 * (docs/vercel-sandbox.md): a session may live 45 minutes on Hobby, 5 h (now 24 h) on
 * Pro/Enterprise; a sandbox keeps 1-10 snapshots when it manages them itself.
 */

const intIn = (min: number, max: number, what: string) =>
  z
    .number({ error: `expected ${what}` })
    .int({ error: `expected ${what}` })
    .min(min, { error: `expected ${what}` })
    .max(max, { error: `expected ${what}` });

const nonEmpty = (what: string) =>
  z.string({ error: `expected ${what}` }).min(1, { error: `expected ${what}` });

/** The Hobby plan's cap on one session's life, extensions included. */
export const HOBBY_MAX_TIMEOUT_MINUTES = 45;

export const vercelConfigSchema = z
  .strictObject({
    /**
     * "snapshot": each wake creates a new sandbox from ClawRun's latest snapshot; ClawRun
     * keeps its own retention. "persistent": one named sandbox per instance; stop() saves
     * its files and wake resumes it (docs/vercel-sandbox.md, "The two modes"); Vercel keeps the last `keepLastSnapshots`.
     */
    mode: z
      .enum(["snapshot", "persistent"], { error: 'expected "snapshot" or "persistent"' })
      .default("snapshot"),
    /** A Vercel-managed runtime ("node24", "node22", "python3.13", ...). Not with `image`. */
    runtime: nonEmpty('a runtime name such as "node24"').optional(),
    /** A container image (e.g. "vercel/sandbox/node:24"). Not with `runtime`. Default: Vercel's universal image. */
    image: nonEmpty('an image reference such as "vercel/sandbox/node:24"').optional(),
    /** Region the sandbox runs in (e.g. "iad1"); Vercel's default when absent. */
    region: z
      .string({ error: 'expected a Vercel region id such as "iad1"' })
      .regex(/^[a-z]{3}\d+$/, { error: 'expected a Vercel region id such as "iad1"' })
      .optional(),
    /** The plan's cap on one session's life in minutes (Hobby 45; Pro and Enterprise up to 1440). */
    maxTimeoutMinutes: intIn(1, 1440, "a whole number of minutes from 1 to 1440").default(
      HOBBY_MAX_TIMEOUT_MINUTES,
    ),
    /** Persistent mode: snapshots Vercel keeps for the named sandbox (the newest; 1-10). */
    keepLastSnapshots: intIn(1, 10, "a whole number from 1 to 10").default(3),
    /**
     * Snapshot mode: stopped sandboxes without any snapshot left that stay listed (the newest);
     * older ones are deleted so listing stays cheap.
     */
    keepStopped: intIn(0, 1000, "a whole number from 0 to 1000").default(20),
    /**
     * Snapshot mode with an agent layer (docs/agents/openclaw.md, "Layer"): the largest
     * compressed state archive kept in ClawRun's store, in MiB. A bigger state is saved as a
     * full sandbox snapshot instead (0: always). Upstash bills storage, so keep it small.
     */
    maxStateArchiveMiB: intIn(0, 64, "a whole number of MiB from 0 to 64").default(8),
  })
  .refine((c) => c.runtime === undefined || c.image === undefined, {
    error: 'set either "runtime" or "image", not both',
    path: ["image"],
  });

export type VercelConfig = z.output<typeof vercelConfigSchema>;

/** How the SDK authenticates: what `Sandbox.create({ token, teamId, projectId })` takes. */
export interface VercelCredentials {
  /** "oidc": a Vercel OIDC token (the SDK refreshes it); "access-token": a personal/team token. */
  kind: "oidc" | "access-token";
  token: string;
  teamId: string;
  projectId: string;
}

export interface VercelEnv {
  credentials: VercelCredentials;
  /** CLAWRUN_VERCEL_API_URL: every SDK request and sandbox URL goes here instead (proxies, tests). */
  apiUrl: string | null;
}

const TRIPLE = ["VERCEL_TOKEN", "VERCEL_TEAM_ID", "VERCEL_PROJECT_ID"] as const;

/** The claims of an OIDC token the SDK reads (owner_id = team, project_id = project). */
const oidcClaimsSchema = z.object({ owner_id: z.string().min(1), project_id: z.string().min(1) });

/** Pure: the team and project a Vercel OIDC token names, or null when it is not one. */
export function oidcClaims(token: string): { teamId: string; projectId: string } | null {
  const parts = token.split(".");
  if (parts.length !== 3 || !parts[1]) return null;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
    const claims = oidcClaimsSchema.safeParse(payload);
    return claims.success
      ? { teamId: claims.data.owner_id, projectId: claims.data.project_id }
      : null;
  } catch {
    return null;
  }
}

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

/**
 * The provider's environment: all three of VERCEL_TOKEN, VERCEL_TEAM_ID, VERCEL_PROJECT_ID
 * (they win, as in the SDK), otherwise VERCEL_OIDC_TOKEN (set on Vercel). A partial triple is
 * an error naming the missing variables even when an OIDC token is present: it is ambiguous.
 */
export const vercelEnvSchema = z
  .object({
    VERCEL_OIDC_TOKEN: optional,
    VERCEL_TOKEN: optional,
    VERCEL_TEAM_ID: optional,
    VERCEL_PROJECT_ID: optional,
    CLAWRUN_VERCEL_API_URL: optional.refine(
      (v) => v === undefined || /^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(v),
      { error: "expected an http(s) URL" },
    ),
  })
  .transform((e, ctx): VercelEnv => {
    const apiUrl = e.CLAWRUN_VERCEL_API_URL?.replace(/\/+$/, "") ?? null;
    const given = TRIPLE.filter((name) => e[name] !== undefined);
    if (given.length > 0 && given.length < TRIPLE.length) {
      for (const name of TRIPLE.filter((n) => e[n] === undefined)) {
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: `set together with ${given.join(" and ")} (all three or none)`,
        });
      }
      return z.NEVER;
    }
    if (e.VERCEL_TOKEN && e.VERCEL_TEAM_ID && e.VERCEL_PROJECT_ID) {
      const credentials: VercelCredentials = {
        kind: "access-token",
        token: e.VERCEL_TOKEN,
        teamId: e.VERCEL_TEAM_ID,
        projectId: e.VERCEL_PROJECT_ID,
      };
      return { credentials, apiUrl };
    }
    if (e.VERCEL_OIDC_TOKEN) {
      const claims = oidcClaims(e.VERCEL_OIDC_TOKEN);
      if (!claims) {
        ctx.addIssue({
          code: "custom",
          path: ["VERCEL_OIDC_TOKEN"],
          message: "expected a Vercel OIDC token (a JWT whose payload has owner_id and project_id)",
        });
        return z.NEVER;
      }
      return { credentials: { kind: "oidc", token: e.VERCEL_OIDC_TOKEN, ...claims }, apiUrl };
    }
    ctx.addIssue({
      code: "custom",
      path: [],
      message:
        "the vercel provider needs VERCEL_OIDC_TOKEN (set on Vercel) or all of VERCEL_TOKEN, VERCEL_TEAM_ID and VERCEL_PROJECT_ID",
    });
    return z.NEVER;
  });
