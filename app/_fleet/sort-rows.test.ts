import { describe, expect, it } from "vitest";
import type { FleetRow } from "@/src/server/dashboard/fleet";
import { nextSort, sortRows } from "./sort-rows";

const row = (name: string, o: Partial<FleetRow> = {}): FleetRow => ({
  name,
  isDefault: false,
  agent: "echo",
  provider: "local",
  status: "sleeping",
  since: 0,
  reason: "",
  error: null,
  activeUntil: null,
  pending: 0,
  failed: 0,
  awakeTodayMs: 0,
  ...o,
});
const names = (rows: FleetRow[]) => rows.map((r) => r.name);

describe("sortRows", () => {
  const rows = [
    row("team", { status: "running", pending: 2, activeUntil: 500 }),
    row("clawrun", { isDefault: true, pending: 0 }),
    row("ops", { status: "failed", pending: 2, activeUntil: 100 }),
  ];

  it("keeps the file order without a sort, and does not touch its input", () => {
    expect(names(sortRows(rows, null))).toEqual(["team", "clawrun", "ops"]);
    sortRows(rows, { key: "name", dir: "asc" });
    expect(names(rows)).toEqual(["team", "clawrun", "ops"]);
  });

  it("orders text and numbers both ways", () => {
    expect(names(sortRows(rows, { key: "name", dir: "asc" }))).toEqual(["clawrun", "ops", "team"]);
    expect(names(sortRows(rows, { key: "name", dir: "desc" }))).toEqual(["team", "ops", "clawrun"]);
    expect(names(sortRows(rows, { key: "status", dir: "asc" }))).toEqual([
      "ops",
      "team",
      "clawrun",
    ]);
  });

  it("breaks ties by name whatever the direction", () => {
    expect(names(sortRows(rows, { key: "pending", dir: "asc" }))).toEqual([
      "clawrun",
      "ops",
      "team",
    ]);
    expect(names(sortRows(rows, { key: "pending", dir: "desc" }))).toEqual([
      "ops",
      "team",
      "clawrun",
    ]);
  });

  it("puts a missing forecast last in both directions", () => {
    expect(names(sortRows(rows, { key: "activeUntil", dir: "asc" }))).toEqual([
      "ops",
      "team",
      "clawrun",
    ]);
    expect(names(sortRows(rows, { key: "activeUntil", dir: "desc" }))).toEqual([
      "team",
      "ops",
      "clawrun",
    ]);
  });
});

describe("nextSort", () => {
  it("starts a new column ascending and flips the current one", () => {
    expect(nextSort(null, "name")).toEqual({ key: "name", dir: "asc" });
    expect(nextSort({ key: "name", dir: "asc" }, "name")).toEqual({ key: "name", dir: "desc" });
    expect(nextSort({ key: "name", dir: "desc" }, "name")).toEqual({ key: "name", dir: "asc" });
    expect(nextSort({ key: "name", dir: "desc" }, "pending")).toEqual({
      key: "pending",
      dir: "asc",
    });
  });
});
