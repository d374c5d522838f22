import { SIDECAR_TIMINGS } from "../protocol/sidecar-config";

/**
 * Lifecycle internals (docs/lifecycle.md, the numbers marked internal). Not configurable in clawrun.json:
 * they are tuned together (TTL buffer ≈ 5 heartbeats of runway, extend ≈ 3 heartbeats).
 * Tests shorten them through `Timings` objects passed in; these are the shipped defaults.
 */
export const LIFECYCLE = {
  /** Sidecar → server heartbeat period (written into the sidecar's config). */
  heartbeatIntervalMs: SIDECAR_TIMINGS.heartbeatIntervalMs,
  /** Extend the native TTL only when less than this much runway remains. */
  ttlBufferMs: 5 * 60_000,
  /** How far one extend pushes the native TTL. */
  extendByMs: 3 * 60_000,
  /** Native TTL = activeDuration × this (dead-man's switch, ~10 heartbeat cycles). */
  ttlMultiplier: 10,
  /**
   * The lifecycle lock expires by itself after this long if its holder dies. Better than the
   * seed's 60 s on purpose: the holder renews it every third of the lease while it works, so a
   * dead holder delays a wake by seconds, not a minute.
   */
  lockLeaseMs: 10_000,
  /** A holder stops renewing after this long, so a hung operation cannot keep the instance. */
  lockMaxHoldMs: 5 * 60_000,
  /** Health confirmation budget after starting the sidecar (docs/lifecycle.md: 15 s). */
  healthBudgetMs: 15_000,
  /**
   * We poll inside that budget more often than the seed's 1 s to notice "healthy" sooner:
   * every 20 ms for the first 2 s (a wake takes a few hundred ms), 5× less often after.
   */
  healthPollMs: 20,
  /**
   * Issue 22, item 10: a delivery that found the daemon down while its sidecar answers (the
   * supervisor restarts it in ~1-2 s) polls the door's health this often, for up to this
   * long, then delivers again; past that, the sidecar's `daemonReturned` heartbeat resumes it.
   */
  daemonReturnPollMs: 200,
  daemonReturnBudgetMs: 15_000,
  snapshotAttempts: 3,
  snapshotRetryDelayMs: 2_000,
  /** CountBasedRetention: snapshots kept after a stop. */
  snapshotsKept: 3,
  /**
   * After a failed start, messages and cron retry the wake after this delay, doubling with each
   * consecutive failure up to failedRetryMaxMs (operators can retry at once).
   */
  failedRetryBaseMs: 5_000,
  failedRetryMaxMs: 5 * 60_000,
  /** Inbox delivery: attempts before a message is dead-lettered, and the first retry delay (doubles). */
  deliveryMaxAttempts: 5,
  deliveryRetryBaseMs: 2_000,
  /**
   * A delivery's claim outlives the agent's delivery timeout by this much (the reply and the
   * ack that follow the answer), so a slow delivery is not claimed twice. A server that died
   * mid-delivery leaves the message to the next deliverer after the timeout plus this.
   */
  claimMarginMs: 5_000,
  /** Local in-process reconcile tick (Vercel Cron does this in production). */
  tickIntervalMs: 60_000,
} as const;

export type LifecycleTimings = { -readonly [K in keyof typeof LIFECYCLE]: number };
