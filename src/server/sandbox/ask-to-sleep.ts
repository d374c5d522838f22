import type { SleepPrepareAnswer } from "../agents/types";
import {
  CONSENT_DEFAULTS,
  type ConsentDecision,
  type ConsentSettings,
  decideSleepConsent,
  type PrepareAnswer,
} from "./sleep-consent";

export interface AskToSleepInput {
  /** The agent's prepareSleep through the door. */
  prepare: (signal: AbortSignal) => Promise<SleepPrepareAnswer>;
  /** Whether a delivery is open now (the last heartbeat's openDeliverySince, within maxTurnDuration). */
  deliveryOpen: () => Promise<boolean>;
  clock: () => number;
  settings?: ConsentSettings;
  /** How long one prepare may take before it counts as no answer. */
  askTimeoutMs?: number;
  wait?: (ms: number) => Promise<void>;
}

export const ASK_TIMEOUT_MS = 10_000;

/**
 * Asks the agent whether it may be snapshotted (decideSleepConsent decides). A `busy` answer
 * is returned at once (the caller keeps the agent running and the next heartbeat asks again);
 * silence is retried here until the lease has passed, since only this call knows when the
 * silence began — so one sleep waits at most the lease for an agent that never answers.
 */
export async function askToSleep(input: AskToSleepInput): Promise<ConsentDecision> {
  const settings = input.settings ?? CONSENT_DEFAULTS;
  const wait = input.wait ?? ((ms) => new Promise<void>((r) => setTimeout(r, ms)));
  let unansweredSince: number | null = null;
  for (;;) {
    const answer = await ask(input, input.askTimeoutMs ?? ASK_TIMEOUT_MS);
    const now = input.clock();
    const decision = decideSleepConsent(
      {
        answer,
        unansweredSince,
        deliveryOpen: answer.kind === "no-answer" ? await input.deliveryOpen() : false,
        now,
      },
      settings,
    );
    if (decision.action === "snapshot" || answer.kind === "busy") return decision;
    unansweredSince = decision.unansweredSince;
    // Ask again soon (never later than the lease's end), not after the whole remaining lease.
    await wait(Math.min(decision.retryAfterMs, input.askTimeoutMs ?? ASK_TIMEOUT_MS));
  }
}

async function ask(input: AskToSleepInput, timeoutMs: number): Promise<PrepareAnswer> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const answer = await Promise.race([
      input.prepare(signal),
      new Promise<never>((_, reject) =>
        signal.addEventListener("abort", () => reject(new Error("no answer in time"))),
      ),
    ]);
    return answer.ready
      ? {
          kind: "ready",
          leaseMs: answer.leaseMs,
          ...(answer.suspensionId ? { suspensionId: answer.suspensionId } : {}),
        }
      : { kind: "busy", retryAfterMs: answer.retryAfterMs };
  } catch (err) {
    return { kind: "no-answer", error: err instanceof Error ? err.message : String(err) };
  }
}
