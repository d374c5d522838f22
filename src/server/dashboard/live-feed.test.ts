import { describe, expect, it } from "vitest";
import { transitionsSince } from "./live-feed";
import { sseMessage } from "./marker-feed";

describe("live feed helpers", () => {
  it("lists the statuses entered after an event, oldest first", () => {
    const newestFirst = [
      { id: "5", type: "status.running", at: 50 },
      { id: "4", type: "daemon.restarted", at: 40 },
      { id: "3", type: "status.starting", at: 30 },
      { id: "2", type: "status.creating", at: 20 },
      { id: "1", type: "status.sleeping", at: 10 },
    ];
    expect(transitionsSince(newestFirst, "1")).toEqual([
      { status: "creating", at: 20 },
      { status: "starting", at: 30 },
      { status: "running", at: 50 },
    ]);
    expect(transitionsSince(newestFirst, "5")).toEqual([]);
  });

  it("frames one SSE message with its JSON on one line", () => {
    expect(sseMessage("ping", { now: 1, text: "a\nb" })).toBe(
      'event: ping\ndata: {"now":1,"text":"a\\nb"}\n\n',
    );
  });
});
