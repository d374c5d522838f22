/**
 * Issue 23, item 3: an agent that has its own suspend protocol (OpenClaw's
 * `gateway.suspend.prepare`) is asked before a snapshot, and sleeps only when it agrees.
 */

/** What one `prepare` brought back. */
export type PrepareAnswer =
  /** The agent stopped taking turns for `leaseMs`: snapshot within it. */
  | { kind: "ready"; leaseMs: number; suspensionId?: string }
  /** The agent is working: that is activity; ask again after `retryAfterMs`. */
  | { kind: "busy"; retryAfterMs: number }
  /** No answer in time (or an error): busy for at most the lease, then judged by deliveries. */
  | { kind: "no-answer"; error: string };

export interface ConsentFacts {
  answer: PrepareAnswer;
  /** When the first unanswered `prepare` of this attempt was sent; null: none so far. */
  unansweredSince: number | null;
  /** A delivery through the door is still open (the agent is answering a message). */
  deliveryOpen: boolean;
  now: number;
}

export interface ConsentSettings {
  /** How long an unanswered prepare counts as busy: the protocol's lease (2 min). */
  leaseMs: number;
  /** Bounds on the agent's retry hint, so a bad hint neither spins nor sleeps forever. */
  minRetryMs: number;
  maxRetryMs: number;
}

export const CONSENT_DEFAULTS: ConsentSettings = {
  leaseMs: 120_000,
  minRetryMs: 1_000,
  maxRetryMs: 120_000,
};

export type ConsentDecision =
  /** Snapshot now; the agent must be resumed if the snapshot fails (it is suspended). */
  | { action: "snapshot"; suspended: boolean; suspensionId?: string; reason: string }
  /** Not now: keep running (this counts as activity) and ask again after `retryAfterMs`. */
  | { action: "wait"; retryAfterMs: number; unansweredSince: number | null; reason: string };

/** Pure: snapshot or wait, from one prepare answer and what was known before it. */
export function decideSleepConsent(f: ConsentFacts, s: ConsentSettings): ConsentDecision {
  const clamp = (ms: number) => Math.min(s.maxRetryMs, Math.max(s.minRetryMs, ms));
  switch (f.answer.kind) {
    case "ready":
      return {
        action: "snapshot",
        suspended: true,
        ...(f.answer.suspensionId ? { suspensionId: f.answer.suspensionId } : {}),
        reason: "the agent agreed to sleep",
      };
    case "busy":
      return {
        action: "wait",
        retryAfterMs: clamp(f.answer.retryAfterMs),
        unansweredSince: null,
        reason: `the agent is busy; asking again in ${Math.round(clamp(f.answer.retryAfterMs) / 1000)} s`,
      };
    case "no-answer": {
      const since = f.unansweredSince ?? f.now;
      const left = since + s.leaseMs - f.now;
      if (left > 0)
        return {
          action: "wait",
          retryAfterMs: clamp(left),
          unansweredSince: since,
          reason: `the agent did not answer prepare (${f.answer.error}); busy for up to ${Math.round(left / 1000)} s more`,
        };
      if (f.deliveryOpen)
        return {
          action: "wait",
          retryAfterMs: s.minRetryMs,
          unansweredSince: since,
          reason: "the agent never answered prepare and a delivery is still open",
        };
      return {
        action: "snapshot",
        suspended: false,
        reason: `the agent did not answer prepare for ${Math.round(s.leaseMs / 1000)} s and no delivery is open: sleeping anyway`,
      };
    }
  }
}
