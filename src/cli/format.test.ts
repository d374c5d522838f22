import { describe, expect, it } from "vitest";
import type { OverviewView } from "./api-schemas";
import {
  bytes,
  clock,
  duration,
  formatConfigRows,
  formatEvent,
  formatInbox,
  formatSnapshots,
  formatStatus,
} from "./format";

const NOW = Date.UTC(2026, 11, 1, 13, 20, 0);

const overview = (instance: Partial<OverviewView["instance"]>, extra: Partial<OverviewView> = {}) =>
  ({
    now: NOW,
    instance: {
      name: "clawrun",
      provider: "local",
      agent: "echo",
      status: "sleeping",
      ...instance,
    },
    inbox: { pending: 0, dead: 0 },
    ...extra,
  }) as OverviewView;

describe("format", () => {
  it.each([
    [0, "0 s"],
    [59_400, "59 s"],
    [240_000, "4 min"],
    [5_400_000, "1.5 h"],
    [3 * 86_400_000, "3.0 d"],
  ])("duration(%d) = %s", (ms, text) => {
    expect(duration(ms)).toBe(text);
  });

  it("clock shows the time today and the date before", () => {
    expect(clock(NOW - 5_000, NOW)).toBe("13:19:55");
    expect(clock(NOW - 86_400_000, NOW)).toBe("2026-11-30 13:20:00");
  });

  it("bytes", () => {
    expect([bytes(512), bytes(2048), bytes(5 * 1024 ** 2), bytes(null)]).toEqual([
      "512 B",
      "2.0 KB",
      "5.0 MB",
      "?",
    ]);
  });

  /** The status lines of an agent awake a minute, kept awake for `reason` four minutes more. */
  const awakeFor = (reason: "grace" | "delivery") =>
    formatStatus(
      overview(
        { status: "running", since: NOW - 60_000, sandboxId: "sbx_1" },
        {
          forecast: { reason, activeUntil: NOW + 240_000 },
          heartbeat: { receivedAt: NOW - 3_000, daemonStatus: "running", daemonRestarts: 0 },
        },
      ),
    );

  it("status: the first line answers when it sleeps", () => {
    const lines = awakeFor("grace");
    expect(lines[0]).toBe(
      "running    awake since 13:19:00 (1 min) · sleeps in ~4 min (kept by grace)",
    );
    expect(lines).toContain("heartbeat  3 s ago · daemon running, 0 restarts");
    expect(lines).toContain("sandbox    sbx_1");
  });

  it("status: a long turn reads as answering a message, not as going to sleep", () => {
    const lines = awakeFor("delivery");
    expect(lines[0]).toBe("running    awake since 13:19:00 (1 min) · answering a message");
  });

  it("status: asleep, and failed with its cause and retry", () => {
    expect(formatStatus(overview({ status: "sleeping" }))[0]).toMatch(
      /^sleeping +asleep · wakes on the next message$/,
    );
    const failed = formatStatus(
      overview({ status: "failed", error: "boom" }, { nextRetryAt: NOW + 60_000 }),
    );
    expect(failed[0]).toMatch(/failed · retries at 13:21:00/);
    expect(failed.find((l) => l.startsWith("error"))).toMatch(/^error +boom$/);
  });

  it("status: failed — snapshot missing names start fresh, not wake or a retry", () => {
    const lines = formatStatus(
      overview(
        {
          status: "failed",
          since: NOW - 5_000,
          error: "snapshot missing: …",
          lost: { at: NOW - 5_000, snapshotId: "snap_1" },
        },
        { nextRetryAt: null, inbox: { pending: 1, dead: 0 } },
      ),
    );
    expect(lines[0]).toMatch(
      /^failed +— snapshot missing since 13:19:55 \(5 s\) · clawrun wake --fresh starts an empty agent \(1 queued kept for it\)$/,
    );
    expect(lines[0]).not.toMatch(/wakes on the next message|tries again|retries at/);
    expect(lines).toContain("LOST      snapshot snap_1 was found missing at 13:19:55");
  });

  it("events and snapshots", () => {
    expect(
      formatEvent(
        { id: "1", at: NOW, type: "status.failed", level: "error", message: "it broke" },
        NOW,
      ),
    ).toBe("13:20:00 ERROR status.failed: it broke");
    expect(
      formatEvent({ id: "1", at: NOW, type: "status.running", level: "info", message: "up" }, NOW),
    ).toBe("13:20:00 status.running: up");
    expect(formatSnapshots([], NOW)).toEqual(["no snapshots yet"]);
    expect(
      formatSnapshots([{ id: "snap_1", createdAt: NOW - 120_000, sizeBytes: 2048 }], NOW),
    ).toEqual(["snap_1  13:18:00 (2 min ago)  2.0 KB"]);
  });

  it("inbox: counts, then one line per message with its last error", () => {
    const msg = {
      id: "m1",
      channel: "telegram",
      conversation: "42",
      text: "x".repeat(80),
      receivedAt: NOW - 1000,
      attempts: 5,
      lastError: "agent unreachable",
    };
    const empty = { counts: { pending: 0, dead: 0 }, pending: [], dead: [] };
    const lines = formatInbox(
      { counts: { pending: 0, dead: 1 }, pending: [], dead: [msg], replies: empty },
      NOW,
    );
    expect(lines[0]).toBe("inbox: 0 pending, 1 dead letters · replies: 0 pending, 0 dead letters");
    expect(lines[1]).toBe(
      `dead          m1  telegram/42  13:19:59  5 attempts  "${"x".repeat(59)}…" · last error: agent unreachable`,
    );
  });

  it("config rows, aligned", () => {
    expect(
      formatConfigRows([
        { key: "a", value: "1", source: "default" },
        { key: "sandbox.x", value: "(set)", source: "clawrun.json" },
      ]),
    ).toEqual(["a          1  (default)", "sandbox.x  (set)  (clawrun.json)"]);
  });
});
