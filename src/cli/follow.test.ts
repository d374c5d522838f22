import { describe, expect, it } from "vitest";
import type { EventView, LogLineView } from "./api-schemas";
import { eventsAfter, newEvents, newLogLines } from "./follow";

const ev = (id: string, at = 0): EventView => ({ id, at, type: "t", level: "info", message: id });
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

describe("eventsAfter", () => {
  // Newest first, as the API lists them: e5 (at 5) … e1 (at 1).
  const history = [5, 4, 3, 2, 1].map((n) => ev(`e${n}`, n));
  const ids = (r: { events: EventView[] }) => r.events.map((e) => e.id);
  it.each([
    ["first answer: all, oldest first", history.slice(0, 2), null, ["e4", "e5"], "e5"],
    [
      "a wider window than --limit: nothing older is reprinted",
      history,
      { id: "e5", at: 5 },
      [],
      "e5",
    ],
    ["new events above the cursor", history, { id: "e3", at: 3 }, ["e4", "e5"], "e5"],
    [
      "cursor left the window: only events at or after its time",
      history.slice(0, 2),
      { id: "e3", at: 3 },
      ["e4", "e5"],
      "e5",
    ],
    [
      "a restarted server with later events",
      [ev("x2", 9), ev("x1", 8)],
      { id: "e5", at: 5 },
      ["x1", "x2"],
      "x2",
    ],
    ["nothing at all yet", [], null, [], null],
  ])("%s", (_name, events, cursor, expected, next) => {
    const r = eventsAfter(events, cursor);
    expect(ids(r)).toEqual(expected);
    expect(r.cursor?.id ?? null).toBe(next);
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
