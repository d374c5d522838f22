import { describe, expect, it } from "vitest";
import type { EventView, LogLineView } from "./api-schemas";
import { newEvents, newLogLines } from "./follow";

const ev = (id: string): EventView => ({ id, at: 0, type: "t", level: "info", message: id });
const lines = (...t: string[]): LogLineView[] => t.map((text) => ({ text }));
const texts = (l: LogLineView[]) => l.map((x) => x.text);

describe("newEvents", () => {
  it("returns the unseen ones oldest first (the API lists newest first)", () => {
    expect(newEvents([ev("c"), ev("b"), ev("a")], new Set(["a"])).map((e) => e.id)).toEqual([
      "b",
      "c",
    ]);
    expect(newEvents([ev("a")], new Set(["a"]))).toEqual([]);
  });
});

describe("newLogLines", () => {
  it.each([
    ["nothing new", ["a", "b"], ["a", "b"], []],
    ["appended", ["a", "b"], ["a", "b", "c", "d"], ["c", "d"]],
    ["the window slid", ["a", "b", "c"], ["b", "c", "d"], ["d"]],
    ["the window slid past all we saw", ["a", "b"], ["x", "y"], ["x", "y"]],
    ["first poll", [], ["a"], ["a"]],
    ["repeated lines keep the most overlap", ["x", "x"], ["x", "x", "x"], ["x"]],
    ["a shorter answer (log restarted)", ["a", "b", "c"], ["z"], ["z"]],
  ])("%s", (_name, prev, next, expected) => {
    expect(texts(newLogLines(lines(...prev), lines(...next)))).toEqual(expected);
  });
});
