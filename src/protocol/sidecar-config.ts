import { z } from "zod";
import { SANDBOX_PORTS } from "./constants";

/**
 * The JSON file the server writes into the sandbox and passes to the sidecar as argv[2].
 * It holds no secret: the heartbeat secret travels only in CLAWRUN_HB_SECRET.
 */

/** Seed 001 numbers; tests shorten them, shipped configs leave them at these defaults. */
export const SIDECAR_TIMINGS = {
  heartbeatIntervalMs: 60_000,
  heartbeatTimeoutMs: 10_000,
  probeIntervalMs: 500,
  /**
   * Better than the seed on purpose: probe every 10 ms until the daemon first listens (a
   * refused loopback connect costs microseconds), so a wake is noticed sooner; 5× slower once
   * it has not listened for notListeningWarnMs (a long first start).
   */
  startupProbeMs: 10,
  notListeningWarnMs: 3_000,
  restartDelayMs: 2_000,
  maxRestarts: 5,
  stableResetMs: 60_000,
  shutdownGraceMs: 5_000,
  toolAttempts: 3,
  toolRetryDelayMs: 5_000,
  /** Fallback activity scan period where recursive fs.watch is unavailable. */
  activityFallbackScanMs: 30_000,
  logMaxBytes: 5 * 1024 * 1024,
} as const;

const positive = z.number().int().positive();

export const sidecarTimingsSchema = z.strictObject(
  Object.fromEntries(Object.keys(SIDECAR_TIMINGS).map((k) => [k, positive.optional()])) as Record<
    keyof typeof SIDECAR_TIMINGS,
    z.ZodOptional<typeof positive>
  >,
);

export const sidecarToolSchema = z.strictObject({
  name: z.string().min(1),
  check: z.string().min(1),
  install: z.array(z.string().min(1)).min(1),
});

export const sidecarConfigSchema = z.strictObject({
  sandboxId: z.string().min(1),
  /** Sandbox root: the agent's home and workspace; logs go to `<root>/logs/`. */
  root: z.string().min(1),
  sandboxCreatedAt: z.number().int().nonnegative(),
  /** Base URL of the ClawRun server; heartbeats go to `<parentUrl>/api/heartbeat`. */
  parentUrl: z.url(),
  daemon: z.strictObject({
    command: z.string().min(1),
    /** `{PORT}` in an argument is replaced with the daemon's listen port. */
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    /** Declared port; the real one may be mapped (see resolveListenPort). */
    port: z.number().int().min(1).max(65535).default(SANDBOX_PORTS.daemon),
    cwd: z.string().optional(),
  }),
  healthPort: z.number().int().min(1).max(65535).default(SANDBOX_PORTS.sidecar),
  tools: z.array(sidecarToolSchema).default([]),
  /** Paths (relative to root) whose changes are housekeeping, not agent activity. */
  activityIgnore: z.array(z.string()).default([]),
  timings: sidecarTimingsSchema.default({}),
});

export type SidecarConfig = z.output<typeof sidecarConfigSchema>;
export type SidecarConfigInput = z.input<typeof sidecarConfigSchema>;
export type SidecarTimings = { -readonly [K in keyof typeof SIDECAR_TIMINGS]: number };

export function effectiveTimings(config: SidecarConfig): SidecarTimings {
  const overrides = Object.fromEntries(
    Object.entries(config.timings).filter(([, v]) => v !== undefined),
  );
  return { ...SIDECAR_TIMINGS, ...overrides };
}
