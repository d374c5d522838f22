/**
 * The free plans' monthly limits the free-plan estimate compares with (hobby-fit.ts,
 * docs/several-agents.md "How many agents fit the free plans"). They change: each carries
 * where it was read, and all were read on `FREE_LIMITS_AS_OF`.
 *
 * - Vercel Sandbox on Hobby: 5 Active CPU hours, 420 GB-hours of provisioned memory and 5,000
 *   sandbox creations a month (https://vercel.com/docs/vercel-sandbox/pricing); past them,
 *   sandbox creation pauses until the next cycle.
 * - Vercel Functions on Hobby (Fluid compute): 1 million invocations a month
 *   (https://vercel.com/docs/functions/usage-and-pricing).
 * - Upstash Redis free database: 500K commands a month
 *   (https://upstash.com/docs/redis/overall/pricing, linked from https://upstash.com/pricing/redis).
 */
export const FREE_LIMITS_AS_OF = "2026-12-03";

export type FreeLimitId =
  | "sandboxCpuHours"
  | "sandboxMemoryGbHours"
  | "sandboxCreations"
  | "functionInvocations"
  | "upstashCommands";

export interface FreeLimit {
  /** What the limit is called where it is published. */
  label: string;
  unit: string;
  perMonth: number;
  source: string;
}

export const FREE_LIMITS: Record<FreeLimitId, FreeLimit> = {
  sandboxCpuHours: {
    label: "Vercel Sandbox Active CPU (Hobby)",
    unit: "CPU-hours",
    perMonth: 5,
    source: "https://vercel.com/docs/vercel-sandbox/pricing",
  },
  sandboxMemoryGbHours: {
    label: "Vercel Sandbox provisioned memory (Hobby)",
    unit: "GB-hours",
    perMonth: 420,
    source: "https://vercel.com/docs/vercel-sandbox/pricing",
  },
  sandboxCreations: {
    label: "Vercel Sandbox creations (Hobby)",
    unit: "creations",
    perMonth: 5_000,
    source: "https://vercel.com/docs/vercel-sandbox/pricing",
  },
  functionInvocations: {
    label: "Vercel Functions invocations (Hobby)",
    unit: "invocations",
    perMonth: 1_000_000,
    source: "https://vercel.com/docs/functions/usage-and-pricing",
  },
  upstashCommands: {
    label: "Upstash Redis commands (free database)",
    unit: "commands",
    perMonth: 500_000,
    source: "https://upstash.com/docs/redis/overall/pricing",
  },
};
