import { describe, expect, it } from "vitest";
import { INITIAL_STATE } from "../../src/server/sandbox/state-cell";
import { headline, mainAction } from "./headline";
import type { Overview } from "./types";

const NOW = Date.UTC(2026, 11, 1, 13, 20);
const MIN = 60_000;

function overview(
  over: Partial<Overview["instance"]> = {},
  extra: Partial<Overview> = {},
): Overview {
  return {
    now: NOW,
    instance: { name: "main", provider: "local", agent: "echo", ...INITIAL_STATE, ...over },
    agent: { type: "echo", version: null, model: null },
    transitioning: false,
    heartbeat: null,
    sidecar: null,
    forecast: null,
    nextRetryAt: null,
    inbox: { pending: 0, dead: 0 },
    cron: { nextDueAt: null, nextJob: null },
    awake: {
      day: { windowMs: 1, awakeMs: 0, asleepMs: 1, awakeShare: 0 },
      month: { windowMs: 1, awakeMs: 0, asleepMs: 1, awakeShare: 0 },
    },
    retention: "3 newest snapshots kept",
    canWakeFromSnapshot: true,
    settings: { activeDurationMs: 10 * MIN, heartbeatIntervalMs: 60_000, snapshotsKept: 3 },
    ...extra,
  } as Overview;
}

describe("headline (the top line)", () => {
  it("awake: when it sleeps, why, and a countdown share", () => {
    const h = headline(
      overview(
        { status: "running", sandboxId: "sb-1", since: NOW - 20 * MIN },
        {
          forecast: { reason: "grace", activeUntil: NOW + 4 * MIN },
          heartbeat: { lastChangedAt: NOW - 10 * MIN } as Overview["heartbeat"],
        },
      ),
      NOW,
    );
    expect(h.text).toBe("Awake · sleeps in ~4 min");
    expect(h.detail).toMatch(/^\(idle since \d\d:\d\d, kept by the grace period after start\)$/);
    expect(h.countdown?.share).toBeCloseTo(0.4);
    expect(h.fix).toBeNull();
  });

  it("awake while a message is being answered: says so, no countdown to a snapshot (issue 22, item 4)", () => {
    const h = headline(
      overview(
        { status: "running", sandboxId: "sb-1", since: NOW - 20 * MIN },
        {
          forecast: { reason: "delivery", activeUntil: NOW + 10 * MIN },
          heartbeat: {
            lastChangedAt: NOW - 3 * MIN,
            openDeliverySince: NOW - 3 * MIN,
          } as Overview["heartbeat"],
        },
      ),
      NOW,
    );
    expect(h.text).toBe("Awake · answering a message");
    expect(h.detail).toMatch(/^\(since \d\d:\d\d; sleeps once it is answered and idle\)$/);
    expect(h.countdown).toBeNull();
  });

  it("asleep: since when and what wakes it", () => {
    const h = headline(overview({ status: "sleeping", since: NOW - 5 * MIN }), NOW);
    expect(h.text).toMatch(/^Asleep since \d\d:\d\d · wakes on the next message$/);
    expect(h.countdown).toBeNull();
  });

  it("failed: the cause and the one button that fixes it", () => {
    const retry = headline(
      overview({ status: "failed", error: "sidecar never became healthy" }),
      NOW,
    );
    expect(retry.text).toBe("Failed: Sidecar never became healthy");
    expect(retry.fix).toEqual({ label: "Wake", body: {} });
    const lost = headline(
      overview({
        status: "failed",
        error:
          'the agent\'s snapshot snap_1 no longer exists; "start fresh" discards its state on purpose',
      }),
      NOW,
    );
    expect(lost.fix).toEqual({ label: "Start fresh", body: { fresh: true } });
  });

  it("failed — snapshot missing: says so, offers only Start fresh, and keeps the queued messages", () => {
    const o = overview(
      {
        status: "failed",
        error: "snapshot missing: the agent's snapshot snap_1 no longer exists",
        lost: { at: NOW - MIN, sandboxId: null, snapshotId: "snap_1" },
      },
      { inbox: { pending: 2, dead: 0 } },
    );
    const h = headline(o, NOW);
    expect(h.text).toBe("Failed — snapshot missing");
    expect(h.detail).toBe(
      "(snapshot snap_1 no longer exists; Start fresh begins an empty agent; 2 queued messages kept for it)",
    );
    expect(h.fix).toEqual({ label: "Start fresh", body: { fresh: true } });
    expect(h.text).not.toMatch(/wakes on the next message/);
  });

  it("the Agent card's main button agrees with the top line", () => {
    const cases: [Partial<Overview["instance"]>, string][] = [
      [{ status: "uninitialized" }, "Start"],
      [{ status: "sleeping" }, "Wake"],
      [{ status: "failed", error: "sidecar never became healthy" }, "Wake"],
      [
        { status: "failed", error: "x", lost: { at: NOW, sandboxId: null, snapshotId: "snap_1" } },
        "Start fresh",
      ],
      [
        { status: "failed", error: "x", lost: { at: NOW, sandboxId: "sbx_1", snapshotId: null } },
        "Start fresh",
      ],
    ];
    for (const [instance, label] of cases)
      expect(mainAction(overview(instance), NOW).label, JSON.stringify(instance)).toBe(label);
  });

  it("in transition: what is happening", () => {
    expect(headline(overview({ status: "creating", since: NOW - 2_000 }), NOW).text).toBe(
      "Waking · creating the sandbox",
    );
  });
});
