import { asSentence, describeExtendReason, formatClock, formatDuration } from "./format";
import type { Overview } from "./types";

const MINUTE = 60_000;

/** The one button that moves a resting or failed agent on. */
export type Fix = { label: string; body: { fresh?: boolean } } | null;

export interface Headline {
  tone: "ok" | "rest" | "busy" | "bad";
  /** The answer in one line: "Awake · sleeps in ~4 min". */
  text: string;
  /** Why, in a few words: "(idle since 13:10, kept by the grace period)". */
  detail: string;
  /** Time left before sleep as a share of the active duration, while awake. */
  countdown: { share: number; leftMs: number } | null;
  fix: Fix;
}

const TRANSIT: Record<string, string> = {
  creating: "Waking · creating the sandbox",
  starting: "Waking · starting the agent",
  snapshotting: "Going to sleep · taking a snapshot",
  stopping: "Going to sleep · stopping the sandbox",
};

/**
 * Pure: the operator's question — is it up, and when does that change? — answered from the
 * overview (docs/lifecycle.md for the rules behind "sleeps in").
 */
export function headline(o: Overview, now: number): Headline {
  const i = o.instance;
  const at = (t: number) => formatClock(t, now);
  if (i.status === "running") {
    const f = o.forecast;
    if (!f)
      return {
        tone: "ok",
        text: "Awake",
        detail: "(waiting for the first heartbeat)",
        countdown: null,
        fix: null,
      };
    const left = Math.max(0, f.activeUntil - now);
    // A long turn is work, not idleness: no countdown to a snapshot while it runs.
    if (f.reason === "delivery")
      return {
        tone: "ok",
        text: "Awake · answering a message",
        detail: o.heartbeat?.openDeliverySince
          ? `(since ${at(o.heartbeat.openDeliverySince)}; sleeps once it is answered and idle)`
          : "",
        countdown: null,
        fix: null,
      };
    const idleSince = o.heartbeat ? `idle since ${at(o.heartbeat.lastChangedAt)}` : "";
    const kept = f.reason ? `kept by ${describeExtendReason(f.reason)}` : "";
    const why = [idleSince, kept].filter(Boolean).join(", ");
    const total = Math.max(1, o.settings.activeDurationMs);
    return {
      tone: "ok",
      text:
        left > 0
          ? `Awake · sleeps in ~${Math.max(1, Math.ceil(left / MINUTE))} min`
          : "Awake · sleeps at the next heartbeat",
      detail: why ? `(${why})` : "",
      countdown: { share: Math.min(1, left / total), leftMs: left },
      fix: null,
    };
  }
  if (i.status in TRANSIT)
    return {
      tone: "busy",
      text: TRANSIT[i.status] as string,
      detail: `(for ${formatDuration(now - i.since)})`,
      countdown: null,
      fix: null,
    };
  if (i.status === "sleeping")
    return {
      tone: "rest",
      text: `Asleep since ${at(i.since)} · wakes on the next message`,
      detail: o.cron.nextDueAt
        ? `(or for cron job “${o.cron.nextJob}” at ${at(o.cron.nextDueAt)})`
        : "",
      countdown: null,
      fix: null,
    };
  if (i.status === "uninitialized")
    return {
      tone: "rest",
      text: "Never started · the first message starts it",
      detail: "",
      countdown: null,
      fix: { label: "Start", body: {} },
    };
  const kept = o.inbox.pending > 0 ? `; ${queued(o.inbox.pending)} kept for it` : "";
  // The saved state is gone: nothing retries, and "start fresh" is the one way on.
  if (i.lost?.snapshotId)
    return {
      tone: "bad",
      text: "Failed — snapshot missing",
      detail: `(snapshot ${i.lost.snapshotId} no longer exists; Start fresh begins an empty agent${kept})`,
      countdown: null,
      fix: START_FRESH,
    };
  // failed: lost state can only be replaced on purpose; otherwise a plain wake retries.
  const cause = asSentence(i.error ?? i.reason).replace(/\.$/, "");
  const lost = Boolean(i.lost) || /start fresh/i.test(i.error ?? "");
  return {
    tone: "bad",
    text: `Failed: ${cause}`,
    detail: o.nextRetryAt ? `(retries by itself at ${at(o.nextRetryAt)})` : "",
    countdown: null,
    fix: lost ? START_FRESH : { label: "Wake", body: {} },
  };
}

const START_FRESH: Fix = { label: "Start fresh", body: { fresh: true } };

function queued(n: number): string {
  return `${n} queued message${n === 1 ? "" : "s"}`;
}

/**
 * Pure: the Agent card's main button for a resting agent — the same action the top line
 * offers, so the two never disagree (a failed agent whose state is gone says Start fresh).
 */
export function mainAction(o: Overview, now: number): NonNullable<Fix> {
  if (o.instance.status === "uninitialized") return { label: "Start", body: {} };
  if (o.instance.status === "failed") return headline(o, now).fix ?? { label: "Wake", body: {} };
  return { label: "Wake", body: {} };
}
