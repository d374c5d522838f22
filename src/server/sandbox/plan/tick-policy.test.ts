import { describe, expect, it } from "vitest";
import { MIN, NOW, SEED_SETTINGS, stateOf } from "../../../../tests/support/policy-fixtures";
import type { InstanceState } from "../../domain/instance-state";
import { nextTickAt, planTick, type TickFacts } from "./tick-policy";

const S = SEED_SETTINGS;
const st = (status: InstanceState["status"], over: Partial<InstanceState> = {}) =>
  stateOf(status, 10, 10, over);

function facts(over: Partial<TickFacts>): TickFacts {
  return {
    state: null,
    sandboxStatus: null,
    sidecarAnswers: null,
    orphans: [],
    inboxPending: 0,
    cronDueAt: null,
    now: NOW,
    ...over,
  };
}

describe("planTick", () => {
  it.each<[string, Partial<TickFacts>, ReturnType<typeof planTick>]>([
    ["nothing to do when never started", {}, []],
    ["healthy running instance", { state: st("running"), sandboxStatus: "running" }, []],
    [
      "sandbox killed by its TTL → mark sleeping",
      { state: st("running"), sandboxStatus: "stopped" },
      [{ kind: "mark-dead", sandboxStatus: "stopped" }],
    ],
    [
      "sandbox vanished entirely",
      { state: st("running"), sandboxStatus: null },
      [{ kind: "mark-dead", sandboxStatus: null }],
    ],
    [
      "stuck creating (lock free) → repair",
      { state: st("creating"), sandboxStatus: "running" },
      [{ kind: "repair", from: "creating" }],
    ],
    [
      "stuck snapshotting → repair",
      { state: st("snapshotting"), sandboxStatus: "running" },
      [{ kind: "repair", from: "snapshotting" }],
    ],
    [
      "orphans are stopped",
      { state: st("sleeping", { sandboxId: null }), orphans: ["sbx_9"] },
      [{ kind: "stop-orphans", ids: ["sbx_9"] }],
    ],
    [
      "repair and orphans together, nothing else",
      { state: st("stopping"), sandboxStatus: "stopped", orphans: ["sbx_9"], inboxPending: 3 },
      [
        { kind: "repair", from: "stopping" },
        { kind: "stop-orphans", ids: ["sbx_9"] },
      ],
    ],
    [
      "running with pending inbox → drain",
      { state: st("running"), sandboxStatus: "running", inboxPending: 2 },
      [{ kind: "drain" }],
    ],
    [
      "running and a cron job is due → run it",
      { state: st("running"), sandboxStatus: "running", cronDueAt: NOW },
      [{ kind: "run-cron" }],
    ],
    [
      "running, cron not yet due",
      { state: st("running"), sandboxStatus: "running", cronDueAt: NOW + MIN },
      [],
    ],
    [
      "sleeping, cron due within lead time → wake",
      { state: st("sleeping", { sandboxId: null }), cronDueAt: NOW + MIN },
      [{ kind: "wake", reason: "cron" }],
    ],
    [
      "sleeping, cron due after lead time → wait",
      { state: st("sleeping", { sandboxId: null }), cronDueAt: NOW + MIN + 1 },
      [],
    ],
    [
      "sleeping with pending inbox → wake",
      { state: st("sleeping", { sandboxId: null }), inboxPending: 1 },
      [{ kind: "wake", reason: "inbox" }],
    ],
    [
      "failed recently with pending inbox → wait out the backoff",
      {
        state: st("failed", { sandboxId: null, since: NOW - 1_000, failedStarts: 1 }),
        inboxPending: 1,
      },
      [],
    ],
    [
      "running, but its sidecar does not answer → save and stop it (the agent is gone)",
      {
        state: st("running"),
        sandboxStatus: "running",
        sidecarAnswers: false,
        inboxPending: 2,
      },
      [{ kind: "sleep", reason: "the sidecar stopped answering (agent gone)" }],
    ],
    [
      "running, sidecar answers, TTL about to fire without extensions → save and stop",
      {
        state: stateOf("running", 10, 2.4),
        sandboxStatus: "running",
        sidecarAnswers: true,
      },
      [{ kind: "sleep", reason: "the native TTL is about to fire and no heartbeat extended it" }],
    ],
    [
      "running, TTL runway just above half the buffer → nothing",
      { state: stateOf("running", 10, 2.6), sandboxStatus: "running", sidecarAnswers: true },
      [],
    ],
    [
      "lost state waits for the operator even with messages queued",
      {
        state: st("failed", {
          sandboxId: null,
          since: NOW - 60 * MIN,
          lost: { at: NOW, sandboxId: "sbx_1", snapshotId: null },
        }),
        inboxPending: 4,
      },
      [],
    ],
    [
      "failed long ago with pending inbox → retry",
      {
        state: st("failed", { sandboxId: null, since: NOW - 6 * MIN, failedStarts: 9 }),
        inboxPending: 1,
      },
      [{ kind: "wake", reason: "inbox" }],
    ],
  ])("%s", (_n, over, expected) => {
    expect(planTick(facts(over), S)).toEqual(expected);
  });
});

describe("nextTickAt", () => {
  it("is the failed instance's retry time when messages wait, and nothing when its state was lost", () => {
    const failed = st("failed", { sandboxId: null, since: NOW, failedStarts: 2 });
    expect(nextTickAt(facts({ state: failed, inboxPending: 1 }), S)).toBe(NOW + 10_000);
    expect(nextTickAt(facts({ state: failed, inboxPending: 0 }), S)).toBeNull();
    const lost = { ...failed, lost: { at: NOW, sandboxId: "s", snapshotId: null } };
    expect(nextTickAt(facts({ state: lost, inboxPending: 3 }), S)).toBeNull();
  });
  it("is a cron job's wake time while asleep and its due time while running", () => {
    const asleep = st("sleeping", { sandboxId: null });
    expect(nextTickAt(facts({ state: asleep, cronDueAt: NOW + 10 * MIN }), S)).toBe(NOW + 9 * MIN);
    expect(nextTickAt(facts({ state: st("running"), cronDueAt: NOW + 10 * MIN }), S)).toBe(
      NOW + 10 * MIN,
    );
    expect(nextTickAt(facts({ state: st("running"), cronDueAt: NOW - 1 }), S)).toBe(NOW);
  });
});
