import { describe, expect, it } from "vitest";
import type { SnapshotInfo } from "../../providers/types";
import { CountBasedRetention } from "./retention";

const snap = (id: string, createdAt: number): SnapshotInfo => ({
  id,
  createdAt,
  sourceSandboxId: "sbx",
  sizeBytes: 1,
});

describe("CountBasedRetention.select", () => {
  const five = [snap("s1", 1), snap("s5", 5), snap("s3", 3), snap("s2", 2), snap("s4", 4)];
  it.each([
    ["keep 3 of 5: the two oldest go", 3, five, ["s2", "s1"]],
    ["keep 1 of 5", 1, five, ["s4", "s3", "s2", "s1"]],
    ["fewer than n: nothing goes", 3, five.slice(0, 2), []],
    ["exactly n: nothing goes", 5, five, []],
    ["no snapshots", 3, [], []],
    [
      "ties on createdAt are broken by id, deterministically",
      2,
      [snap("b", 10), snap("a", 10), snap("c", 10)],
      ["a"],
    ],
  ])("%s", (_name, keep, snapshots, deleted) => {
    expect(new CountBasedRetention(keep).select(snapshots).map((s) => s.id)).toEqual(deleted);
  });

  it("does not reorder its input", () => {
    const input = [...five];
    new CountBasedRetention(2).select(input);
    expect(input).toEqual(five);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("refuses keep = %s", (keep) => {
    expect(() => new CountBasedRetention(keep)).toThrow(/positive integer/);
  });

  it("describes itself", () => {
    expect(new CountBasedRetention(3).describe()).toBe("keep the newest 3 snapshots");
    expect(new CountBasedRetention(1).describe()).toBe("keep the newest 1 snapshot");
  });
});
