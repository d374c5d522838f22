import { describe, expect, it } from "vitest";
import {
  type ConsentDecision,
  type ConsentFacts,
  decideSleepConsent,
  type PrepareAnswer,
} from "./sleep-consent";

const s = { leaseMs: 120_000, minRetryMs: 1_000, maxRetryMs: 120_000 };
const now = 1_000_000;
const noAnswer: PrepareAnswer = { kind: "no-answer", error: "timeout" };

const cases: [string, Partial<ConsentFacts>, Partial<ConsentDecision>][] = [
  [
    "ready: snapshot, the agent is suspended",
    { answer: { kind: "ready", leaseMs: 120_000, suspensionId: "s-1" } },
    { action: "snapshot", suspended: true, suspensionId: "s-1" },
  ],
  [
    "busy: wait for the hint",
    { answer: { kind: "busy", retryAfterMs: 20_000 } },
    { action: "wait", retryAfterMs: 20_000, unansweredSince: null },
  ],
  [
    "busy with a zero hint: at least the minimum",
    { answer: { kind: "busy", retryAfterMs: 0 } },
    { action: "wait", retryAfterMs: 1_000 },
  ],
  [
    "busy with a huge hint: at most the maximum",
    { answer: { kind: "busy", retryAfterMs: 1e9 } },
    { action: "wait", retryAfterMs: 120_000 },
  ],
  [
    "busy resets an earlier silence",
    { answer: { kind: "busy", retryAfterMs: 5_000 }, unansweredSince: now - 100_000 },
    { action: "wait", unansweredSince: null },
  ],
  [
    "first silence: busy for the whole lease",
    { answer: noAnswer },
    { action: "wait", retryAfterMs: 120_000, unansweredSince: now },
  ],
  [
    "silence within the lease: wait for the rest",
    { answer: noAnswer, unansweredSince: now - 100_000 },
    { action: "wait", retryAfterMs: 20_000, unansweredSince: now - 100_000 },
  ],
  [
    "silence past the lease, no delivery: snapshot, not suspended",
    { answer: noAnswer, unansweredSince: now - 120_000 },
    { action: "snapshot", suspended: false },
  ],
  [
    "silence past the lease, a delivery open: wait",
    { answer: noAnswer, unansweredSince: now - 200_000, deliveryOpen: true },
    { action: "wait", retryAfterMs: 1_000 },
  ],
];

describe("decideSleepConsent", () => {
  it.each(cases)("%s", (_name, facts, expected) => {
    const decision = decideSleepConsent(
      { answer: noAnswer, unansweredSince: null, deliveryOpen: false, now, ...facts },
      s,
    );
    expect(decision).toMatchObject(expected);
  });
});
