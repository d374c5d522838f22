import { describe, expect, it } from "vitest";
import { filterEvents, summarizeEvent } from "./event-summary";
import type { LifecycleEvent } from "./types";

let id = 0;
const ev = (type: string, message: string, extra: Partial<LifecycleEvent> = {}): LifecycleEvent =>
  ({
    id: String(++id),
    at: 1,
    type,
    level: "info",
    sandboxId: null,
    message,
    details: {},
    ...extra,
  }) as LifecycleEvent;

describe("event rows", () => {
  it("says what a wake took and what caused it", () => {
    const creating = ev("status.creating", "message msg-1 arrived");
    const running = ev("status.running", "running, restored from snap_1", {
      details: { timings: { createMs: 200, healthyMs: 100, totalMs: 361 } },
    });
    expect(summarizeEvent(running, [creating])).toBe(
      "Woke in 361 ms for message msg-1 arrived (restored from snap_1)",
    );
  });

  it("names the snapshot time of a sleep", () => {
    const e = ev("status.sleeping", "asleep (idle)", {
      details: { timings: { snapshotMs: 120, stopMs: 5 } },
    });
    expect(summarizeEvent(e, [])).toBe("Asleep after a 120 ms snapshot (idle)");
  });

  it("keeps warnings and errors under the problems filter", () => {
    const list = [ev("a", "x"), ev("b", "y", { level: "warn" }), ev("c", "z", { level: "error" })];
    expect(filterEvents(list, "problems").map((e) => e.type)).toEqual(["b", "c"]);
    expect(filterEvents(list, "all")).toHaveLength(3);
  });
});
