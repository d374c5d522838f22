import { describe, expect, it } from "vitest";
import {
  asSentence,
  formatAge,
  formatBytes,
  formatClock,
  formatDuration,
  formatMs,
  formatPercent,
  formatRestingOutlook,
  formatSleepOutlook,
  formatStatusAge,
  formatTrail,
  phaseTimings,
  restartChart,
  restartHistory,
  runwayShare,
} from "./format";

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const D = 24 * H;
// 2025-03-03 10:00:00 UTC; the zone is passed explicitly so results do not depend on the machine.
const NOW = Date.UTC(2025, 2, 3, 10, 0, 0);
const UTC = "UTC";

describe("formatDuration", () => {
  it.each([
    [0, "0 s"],
    [-5 * S, "0 s"],
    [999, "0 s"],
    [45 * S, "45 s"],
    [59_999, "59 s"],
    [MIN, "1 min"],
    [12 * MIN + 59 * S, "12 min"],
    [H, "1 h"],
    [2 * H + 5 * MIN, "2 h 5 min"],
    [D, "1 d"],
    [3 * D + 4 * H + 30 * MIN, "3 d 4 h"],
  ])("%d ms → %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe("formatMs (phase timings)", () => {
  it.each([
    [0, "0 ms"],
    [850.4, "850 ms"],
    [1_250, "1.3 s"],
    [9_949, "9.9 s"],
    [12_000, "12 s"],
    [3 * MIN, "3 min"],
  ])("%d ms → %s", (ms, text) => {
    expect(formatMs(ms)).toBe(text);
  });
});

describe("formatClock", () => {
  it.each([
    ["same day", Date.UTC(2025, 2, 3, 9, 14), "09:14"],
    ["midnight today", Date.UTC(2025, 2, 3, 0, 0), "00:00"],
    ["yesterday", Date.UTC(2025, 2, 2, 23, 5), "2 Mar 23:05"],
    ["another month", Date.UTC(2025, 0, 15, 8, 0), "15 Jan 08:00"],
  ])("%s", (_name, at, text) => {
    expect(formatClock(at, NOW, UTC)).toBe(text);
  });

  it("uses the given time zone for both the time and the day", () => {
    // 23:30 UTC on the 2nd is 08:30 on the 3rd in Tokyo, the same day as NOW there (19:00).
    expect(formatClock(Date.UTC(2025, 2, 2, 23, 30), NOW, "Asia/Tokyo")).toBe("08:30");
  });
});

describe("formatAge", () => {
  it.each([
    [NOW, "just now"],
    [NOW - 400, "just now"],
    [NOW - 5 * S, "5 s ago"],
    [NOW - 12 * MIN, "12 min ago"],
    [NOW - 3 * H, "3 h ago"],
    [NOW + 5 * MIN, "in 5 min"],
  ])("%d → %s", (at, text) => {
    expect(formatAge(at, NOW)).toBe(text);
  });
});

describe("formatStatusAge", () => {
  it.each([
    ["running", NOW - 12 * MIN, "running for 12 min"],
    ["creating", NOW - 3 * S, "creating for 3 s"],
    ["snapshotting", NOW - 90 * S, "snapshotting for 1 min"],
    ["sleeping", Date.UTC(2025, 2, 3, 9, 14), "sleeping since 09:14"],
    ["failed", Date.UTC(2025, 2, 1, 17, 2), "failed since 1 Mar 17:02"],
    ["uninitialized", 0, "never started"],
  ])("%s", (status, since, text) => {
    expect(formatStatusAge(status, since, NOW, UTC)).toBe(text);
  });
});

describe("formatBytes", () => {
  it.each([
    [0, "0 B"],
    [512, "512 B"],
    [1023, "1023 B"],
    [1024, "1.0 KiB"],
    [1536, "1.5 KiB"],
    [12 * 1024 * 1024 + 300_000, "12 MiB"],
    [1.25 * 1024 ** 3, "1.3 GiB"],
    [-1, "0 B"],
  ])("%d → %s", (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});

describe("formatPercent", () => {
  it.each([
    [0, "0%"],
    [0.004, "<1%"],
    [0.07, "7%"],
    [0.5, "50%"],
    [0.996, ">99%"],
    [1, "100%"],
  ])("%d → %s", (share, text) => {
    expect(formatPercent(share)).toBe(text);
  });
});

describe("formatSleepOutlook", () => {
  it.each([
    ["not running", null, null],
    [
      "grace period",
      { reason: "grace", activeUntil: NOW + 4 * MIN + 10 * S },
      "Kept awake by the grace period after start; will sleep in ~5 min if nothing changes",
    ],
    [
      "file activity",
      { reason: "file-activity", activeUntil: NOW + 30 * S },
      "Kept awake by recent file activity; will sleep in ~1 min if nothing changes",
    ],
    [
      "cron, deadline reached",
      { reason: "cron", activeUntil: NOW },
      "Kept awake by a cron job due soon; will sleep soon if nothing changes",
    ],
    ["idle", { reason: null, activeUntil: NOW }, "Idle: will sleep at the next heartbeat"],
  ])("%s", (_name, forecast, text) => {
    expect(formatSleepOutlook(forecast, NOW)).toBe(text);
  });
});

describe("formatRestingOutlook", () => {
  it.each([
    ["sleeping", /^Asleep: .*wakes it\.$/],
    ["uninitialized", /^Never started: press Start/],
    ["failed", /last start failed.*Wake retries it/],
    ["stopping", /^Going to sleep \(stopping\)\.$/],
    ["creating", /^Waking \(creating\)\.$/],
    // Awake before the first heartbeat: never "Not running (running)".
    ["running", /^Awake: when it sleeps is known after its first heartbeat\.$/],
  ])("%s", (status, text) => {
    expect(formatRestingOutlook(status)).toMatch(text);
    expect(formatRestingOutlook(status)).not.toMatch(/Not running \(/);
  });

  it("failed with its state gone: start fresh, never Wake", () => {
    expect(formatRestingOutlook("failed", true)).toMatch(
      /^Not running: its saved state is gone\. Start fresh/,
    );
  });
});

describe("runwayShare", () => {
  it.each([
    [5 * MIN, 10 * MIN, 0.5],
    [20 * MIN, 10 * MIN, 1],
    [-1, 10 * MIN, 0],
    [5 * MIN, 0, 0],
  ])("%d of %d → %d", (remaining, scale, share) => {
    expect(runwayShare(remaining, scale)).toBe(share);
  });
});

describe("asSentence", () => {
  it.each([
    ["operator: start", "Operator: start."],
    ["idle. ", "Idle."],
    ["Done!", "Done!"],
    ["", ""],
  ])("%j → %j", (text, out) => {
    expect(asSentence(text)).toBe(out);
  });
});

describe("phaseTimings", () => {
  it("orders wake phases as they happen, total last, with readable labels", () => {
    const phases = phaseTimings({
      timings: {
        totalMs: 1500,
        healthyMs: 800,
        lockMs: 0,
        createMs: 120,
        sidecarStartMs: 60,
        provisionMs: 300,
      },
      restoredFrom: "snap-1",
    });
    expect(phases.map((p) => [p.label, p.ms])).toEqual([
      ["lock", 0],
      ["create", 120],
      ["provision", 300],
      ["sidecar start", 60],
      ["healthy", 800],
      ["total", 1500],
    ]);
  });

  it.each([
    ["no timings", { from: "creating" }],
    ["timings not an object", { timings: "fast" }],
    ["non-numeric values only", { timings: { createMs: "1s", lockMs: null } }],
  ])("%s → none", (_name, details) => {
    expect(phaseTimings(details)).toEqual([]);
  });

  it("keeps unknown phases (before the total) and drops non-numbers", () => {
    const phases = phaseTimings({ timings: { totalMs: 9, warmupMs: 4, snapshotMs: 3, bad: "x" } });
    expect(phases.map((p) => p.label)).toEqual(["snapshot", "warmup", "total"]);
  });
});

describe("restart history and chart", () => {
  const event = (at: number, type: string, details: Record<string, unknown> = {}) => ({
    at,
    type,
    sandboxId: "sbx-1",
    details,
  });
  const events = [
    event(NOW - 10 * MIN, "daemon.restarted", { restarts: 2 }),
    event(NOW - 20 * MIN, "status.running"),
    event(NOW - 30 * MIN, "daemon.restarted", { restarts: 1 }),
    event(NOW - 5 * MIN, "daemon.restarted", {}),
  ];

  it("keeps only daemon restarts, oldest first; a missing count reads as 1", () => {
    expect(restartHistory(events).map((p) => [NOW - p.at, p.restarts])).toEqual([
      [30 * MIN, 1],
      [10 * MIN, 2],
      [5 * MIN, 1],
    ]);
  });

  it("spans exactly the 24 h its caption names and scales counts to the height", () => {
    const chart = restartChart(restartHistory(events), NOW, 288, 60);
    expect(chart.from).toBe(NOW - D);
    expect(chart.to - chart.from).toBe(D);
    expect(chart.maxRestarts).toBe(2);
    // 288 px over 24 h: 12 px an hour, so 30, 10 and 5 min ago sit 6, 2 and 1 px from the end.
    expect(chart.marks.map((m) => [Math.round(m.x), m.y])).toEqual([
      [282, 30],
      [286, 0],
      [287, 30],
    ]);
  });

  it("a restart four hours ago sits at 20/24 of the width, not at the start", () => {
    const chart = restartChart([{ at: NOW - 4 * H, restarts: 3, sandboxId: null }], NOW, 240, 10);
    expect(chart.from).toBe(NOW - D);
    expect(chart.marks).toEqual([
      { x: 200, y: 0, point: { at: NOW - 4 * H, restarts: 3, sandboxId: null } },
    ]);
  });

  it("draws a restart stamped a moment ahead of the page's clock at now, not nowhere", () => {
    const ahead = [{ at: NOW + 400, restarts: 1, sandboxId: null }];
    expect(restartChart(ahead, NOW, 300, 60).marks).toEqual([{ x: 300, y: 0, point: ahead[0] }]);
  });

  it("leaves out restarts older than the window, and has no marks without restarts", () => {
    const old = [{ at: NOW - 2 * D, restarts: 1, sandboxId: null }];
    expect(restartChart(old, NOW, 300, 60).marks).toEqual([]);
    const chart = restartChart([], NOW, 300, 60);
    expect(chart.marks).toEqual([]);
    expect(chart.from).toBe(NOW - D);
  });
});

describe("formatTrail", () => {
  const clock = (at: number) => new Date(at).toISOString().slice(11, 19);
  it("shows a status entered at no known time without a clock (never 00:00:00)", () => {
    const trail = [
      { status: "uninitialized", at: 0 },
      { status: "creating", at: NOW },
    ];
    expect(formatTrail(trail, clock)).toBe("Recent: uninitialized → creating 10:00:00");
  });
  it("is empty for a single status", () => {
    expect(formatTrail([{ status: "running", at: NOW }], clock)).toBe("");
  });
});
