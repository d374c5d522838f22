import { describe, expect, it } from "vitest";
import { MIN, NOW, SEED_SETTINGS, stateOf } from "../../../../tests/support/policy-fixtures";
import type { HeartbeatBody } from "../../../protocol/heartbeat";
import type { InstanceState } from "../../domain/instance-state";
import { activeReason, decideHeartbeat, mayAutoWake, nativeTtlMs, sleepForecast } from "./policy";

const S = SEED_SETTINGS;
const state = (over: Partial<InstanceState> = {}) => stateOf("running", 60, 2, over);

function hb(over: Partial<HeartbeatBody> = {}): HeartbeatBody {
  return {
    sandboxId: "sbx_1",
    lastChangedAt: NOW - 60 * MIN,
    sandboxCreatedAt: NOW - 60 * MIN,
    root: "/home/user",
    daemonStatus: "running",
    daemonRestarts: 0,
    ...over,
  };
}

describe("activeReason (docs/lifecycle.md: grace, file activity, cron)", () => {
  it.each([
    ["grace: created 4:59 ago", { sandboxCreatedAt: NOW - 5 * MIN + 1 }, "grace"],
    ["grace just over at exactly activeDuration", { sandboxCreatedAt: NOW - 5 * MIN }, null],
    ["file activity 4:59 ago", { lastChangedAt: NOW - 5 * MIN + 1 }, "file-activity"],
    ["file activity exactly activeDuration ago is idle", { lastChangedAt: NOW - 5 * MIN }, null],
    ["cron due in 15 min (edge of window)", { cronDueAt: NOW + 15 * MIN }, "cron"],
    ["cron due in 15 min + 1 ms", { cronDueAt: NOW + 15 * MIN + 1 }, null],
    ["cron due now", { cronDueAt: NOW }, "cron"],
    ["cron already past does not keep awake", { cronDueAt: NOW - 1 }, null],
    ["grace wins over file activity", { sandboxCreatedAt: NOW - MIN, lastChangedAt: NOW }, "grace"],
    ["nothing applies", {}, null],
    [
      "a delivery open 9:59 (a long turn) is activity",
      { openDeliverySince: NOW - 10 * MIN + 1 },
      "delivery",
    ],
    [
      "a delivery open exactly maxTurnDuration is stuck, not activity",
      { openDeliverySince: NOW - 10 * MIN },
      null,
    ],
    ["a delivery opened just now is activity", { openDeliverySince: NOW }, "delivery"],
    ["no open delivery (older sidecar: absent)", { openDeliverySince: null }, null],
    [
      "answering wins over the others",
      { openDeliverySince: NOW, sandboxCreatedAt: NOW },
      "delivery",
    ],
    [
      "a stuck delivery leaves the other reasons",
      { openDeliverySince: NOW - 11 * MIN, lastChangedAt: NOW },
      "file-activity",
    ],
  ] as const)("%s", (_name, over, expected) => {
    const facts = {
      sandboxCreatedAt: NOW - 60 * MIN,
      lastChangedAt: NOW - 60 * MIN,
      cronDueAt: null,
      now: NOW,
      ...over,
    };
    expect(activeReason(facts, S)).toBe(expected);
  });
});

describe("decideHeartbeat", () => {
  it.each<
    [
      string,
      InstanceState | null,
      Partial<HeartbeatBody>,
      number | null,
      ReturnType<typeof decideHeartbeat>,
    ]
  >([
    [
      "no state at all → stop that sandbox",
      null,
      {},
      null,
      { action: "stop-stale", reason: "not the instance's current sandbox" },
    ],
    [
      "another sandbox's heartbeat → stop it",
      state({ sandboxId: "sbx_2" }),
      {},
      null,
      { action: "stop-stale", reason: "not the instance's current sandbox" },
    ],
    [
      "starting with a long runway: the first tick races the health check, nothing to do",
      state({ status: "starting", ttlDeadline: NOW + 10 * MIN }),
      {},
      null,
      { action: "none", reason: "instance is starting" },
    ],
    [
      "starting with a short runway: the start-up heartbeat extends it (never left to expire)",
      state({ status: "starting" }),
      {},
      null,
      { action: "extend", reason: "grace", byMs: 3 * MIN },
    ],
    [
      "snapshotting: leave it alone",
      state({ status: "snapshotting" }),
      {},
      null,
      { action: "none", reason: "instance is snapshotting" },
    ],
    [
      "daemon failed → stop at once, even in grace",
      state(),
      { daemonStatus: "failed", daemonRestarts: 5, sandboxCreatedAt: NOW },
      null,
      { action: "stop-failed", reason: "daemon failed after 5 restarts" },
    ],
    [
      "running a sandbox that reports another save than expected → stop, no snapshot",
      state({ expectedGeneration: 4 }),
      { generation: 3, lastChangedAt: NOW },
      null,
      {
        action: "stop-failed",
        reason: "restore attestation failed: found generation 3, expected generation 4",
      },
    ],
    [
      "a sandbox reporting the expected save is judged as usual",
      state({ expectedGeneration: 4 }),
      { generation: 4 },
      null,
      { action: "sleep", reason: "idle: no file activity, grace period over, no cron job due" },
    ],
    [
      "a message being answered for longer than activeDuration → no snapshot; extend a short runway",
      state(),
      { openDeliverySince: NOW - 6 * MIN },
      null,
      { action: "extend", reason: "delivery", byMs: 3 * MIN },
    ],
    [
      "a delivery open past maxTurnDuration is stuck → sleep, naming it",
      state(),
      { openDeliverySince: NOW - 11 * MIN },
      null,
      {
        action: "sleep",
        reason: "idle, and a delivery open since 660 s is past maxTurnDuration",
        stuckDeliverySince: NOW - 11 * MIN,
      },
    ],
    [
      "idle → sleep",
      state(),
      {},
      null,
      { action: "sleep", reason: "idle: no file activity, grace period over, no cron job due" },
    ],
    [
      "file activity with 2 min of TTL left → extend 3 min",
      state(),
      { lastChangedAt: NOW - MIN },
      null,
      { action: "extend", reason: "file-activity", byMs: 3 * MIN },
    ],
    [
      "grace with 4:59 left → extend",
      state({ ttlDeadline: NOW + 5 * MIN - 1 }),
      { sandboxCreatedAt: NOW - MIN },
      null,
      { action: "extend", reason: "grace", byMs: 3 * MIN },
    ],
    [
      "grace with exactly 5 min left → no extend (buffer edge)",
      state({ ttlDeadline: NOW + 5 * MIN }),
      { sandboxCreatedAt: NOW - MIN },
      null,
      { action: "none", reason: "grace: native TTL has 300 s left" },
    ],
    [
      "cron within window, TTL short → extend",
      state(),
      {},
      NOW + 10 * MIN,
      { action: "extend", reason: "cron", byMs: 3 * MIN },
    ],
    [
      "cron beyond window → sleep",
      state(),
      {},
      NOW + 16 * MIN,
      { action: "sleep", reason: "idle: no file activity, grace period over, no cron job due" },
    ],
    [
      "unknown TTL deadline counts as no runway",
      state({ ttlDeadline: null }),
      { lastChangedAt: NOW },
      null,
      { action: "extend", reason: "file-activity", byMs: 3 * MIN },
    ],
  ])("%s", (_name, st, body, cronDueAt, expected) => {
    expect(decideHeartbeat(st, { hb: hb(body), cronDueAt, now: NOW }, S)).toEqual(expected);
  });
});

describe("mayAutoWake", () => {
  it.each([
    ["never started", null, true],
    ["uninitialized", state({ status: "uninitialized" }), true],
    ["sleeping", state({ status: "sleeping" }), true],
    ["running", state(), false],
    ["creating", state({ status: "creating" }), false],
    [
      "first failure 3 s ago (retry after 5 s)",
      state({ status: "failed", since: NOW - 3_000, failedStarts: 1 }),
      false,
    ],
    [
      "first failure 5 s ago",
      state({ status: "failed", since: NOW - 5_000, failedStarts: 1 }),
      true,
    ],
    [
      "third failure 15 s ago (retry after 20 s)",
      state({ status: "failed", since: NOW - 15_000, failedStarts: 3 }),
      false,
    ],
    [
      "third failure 20 s ago",
      state({ status: "failed", since: NOW - 20_000, failedStarts: 3 }),
      true,
    ],
    [
      "ninth failure a minute ago (capped at 5 min)",
      state({ status: "failed", since: NOW - MIN, failedStarts: 9 }),
      false,
    ],
    [
      "ninth failure 5 minutes ago",
      state({ status: "failed", since: NOW - 5 * MIN, failedStarts: 9 }),
      true,
    ],
    [
      "lost state never wakes by itself",
      state({ status: "failed", since: 0, lost: { at: 0, sandboxId: "s", snapshotId: null } }),
      false,
    ],
  ] as const)("%s → %s", (_n, st, expected) => {
    expect(mayAutoWake(st, NOW, S)).toBe(expected);
  });
});

describe("nativeTtlMs: the TTL a new sandbox gets", () => {
  it.each([
    ["seed default: activeDuration × 10", { activeDurationMs: 5 * MIN }, 50 * MIN],
    // 10 × 1 s would be shorter than one heartbeat period: the floor outlasts two and the buffer.
    ["activeDuration 1 s → the floor", { activeDurationMs: 1_000 }, 7 * MIN],
    [
      "floor follows the heartbeat period",
      { activeDurationMs: 1_000, heartbeatIntervalMs: 12_000 },
      5 * MIN + 24_000,
    ],
    [
      "capped by the provider's maximum life",
      { activeDurationMs: 10 * MIN, maxLifetimeMs: 45 * MIN },
      45 * MIN,
    ],
  ] as const)("%s", (_n, over, expected) => {
    expect(nativeTtlMs({ ...S, ...over })).toBe(expected);
  });
});

describe("the provider's cap on a sandbox's life", () => {
  const capped = { ...S, maxLifetimeMs: 45 * MIN };
  const active = hb({ lastChangedAt: NOW - MIN });
  it("extends only up to the cap", () => {
    // Created 40 min ago, 2 min left: the cap leaves 3 min of room, so the usual 3 min fits.
    const st = stateOf("running", 40, 2);
    expect(decideHeartbeat(st, { hb: active, cronDueAt: null, now: NOW }, capped)).toEqual({
      action: "extend",
      reason: "file-activity",
      byMs: 3 * MIN,
    });
    // Created 42 min ago with 2 min left: only 1 min of room remains.
    const later = stateOf("running", 42, 2);
    expect(decideHeartbeat(later, { hb: active, cronDueAt: null, now: NOW }, capped)).toEqual({
      action: "extend",
      reason: "file-activity",
      byMs: MIN,
    });
  });
  it("snapshots and stops an active agent before the cap instead of letting the TTL fire", () => {
    const st = stateOf("running", 41, 4); // the deadline already sits on the cap
    const d = decideHeartbeat(st, { hb: active, cronDueAt: null, now: NOW }, capped);
    expect(d.action).toBe("sleep");
    expect(d.reason).toMatch(/maximum sandbox life is near/);
  });
});

describe("sleepForecast", () => {
  it("reports the reason in force and when it lapses", () => {
    const f = sleepForecast(
      { sandboxCreatedAt: NOW - 10 * MIN, lastChangedAt: NOW - 2 * MIN, cronDueAt: null, now: NOW },
      S,
    );
    expect(f).toEqual({ reason: "file-activity", activeUntil: NOW + 3 * MIN });
  });
  it("an idle instance is due to sleep now", () => {
    const f = sleepForecast(
      { sandboxCreatedAt: NOW - 10 * MIN, lastChangedAt: NOW - 9 * MIN, cronDueAt: null, now: NOW },
      S,
    );
    expect(f).toEqual({ reason: null, activeUntil: NOW });
  });
});
