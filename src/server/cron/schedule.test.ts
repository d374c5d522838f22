import { describe, expect, it } from "vitest";
import { type CronJob, nextOccurrence, viewSchedule } from "./schedule";

const at = (iso: string) => Date.parse(iso);
const daily9: CronJob = {
  name: "daily",
  schedule: "0 9 * * *",
  message: "morning",
  timezone: "UTC",
};
const hourly: CronJob = { name: "hourly", schedule: "0 * * * *", message: "tick", timezone: "UTC" };

describe("cron schedule", () => {
  it("finds the next occurrence strictly after a time", () => {
    expect(nextOccurrence(daily9, at("2026-11-30T08:59:00Z"))).toBe(at("2026-11-30T09:00:00Z"));
    expect(nextOccurrence(daily9, at("2026-11-30T09:00:00Z"))).toBe(at("2026-12-01T09:00:00Z"));
  });

  it("a newly seen job gets a baseline and fires at its next occurrence only", () => {
    const v = viewSchedule([daily9], {}, at("2026-11-30T10:00:00Z"));
    expect(v.due).toEqual([]);
    expect(v.lastRun).toEqual({ daily: at("2026-11-30T10:00:00Z") });
    expect(v.next).toEqual({ job: daily9, dueAt: at("2026-12-01T09:00:00Z") });
  });

  it.each([
    ["not yet due", "2026-11-30T08:59:59Z", [], "2026-11-30T09:00:00Z"],
    ["due exactly now", "2026-11-30T09:00:00Z", ["2026-11-30T09:00:00Z"], "2026-12-01T09:00:00Z"],
    [
      "missed by a few days fires once",
      "2026-12-03T12:00:00Z",
      ["2026-11-30T09:00:00Z"],
      "2026-12-04T09:00:00Z",
    ],
  ])("%s", (_n, now, due, next) => {
    const v = viewSchedule([daily9], { daily: at("2026-11-29T09:00:00Z") }, at(now));
    expect(v.due.map((d) => new Date(d.dueAt).toISOString())).toEqual(
      due.map((d) => new Date(d).toISOString()),
    );
    expect(v.next?.dueAt).toBe(at(next));
  });

  it("picks the earliest job and forgets removed ones", () => {
    const v = viewSchedule(
      [daily9, hourly],
      { daily: at("2026-11-30T00:00:00Z"), gone: 1 },
      at("2026-11-30T07:30:00Z"),
    );
    expect(v.next).toEqual({ job: hourly, dueAt: at("2026-11-30T08:00:00Z") });
    expect(Object.keys(v.lastRun).sort()).toEqual(["daily", "hourly"]);
  });

  it("honours the job's time zone", () => {
    const ny: CronJob = { ...daily9, timezone: "America/New_York" };
    expect(nextOccurrence(ny, at("2026-11-30T12:00:00Z"))).toBe(at("2026-11-30T14:00:00Z"));
  });
});
