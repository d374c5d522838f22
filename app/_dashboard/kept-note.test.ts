import { describe, expect, it } from "vitest";
import { keptAfterRestart } from "./kept-note";

const snap = (id: string, createdAt: number) => ({
  id,
  createdAt,
  sourceSandboxId: "sb",
  sizeBytes: 1,
});

describe("keptAfterRestart (what a restart keeps, and what the next sleep deletes)", () => {
  const three = [snap("a", 1), snap("c", 3), snap("b", 2)];
  it("deletes nothing now; the next sleep keeps the newest N, counting the two it adds", () => {
    expect(keptAfterRestart(three, true, 3)).toEqual({ now: 3, laterDeleted: ["b", "a"] });
  });
  it("adds one snapshot fewer when the agent is not running", () => {
    expect(keptAfterRestart(three, false, 3)).toEqual({ now: 3, laterDeleted: ["a"] });
  });
  it("keeps all when retention has room", () => {
    expect(keptAfterRestart([snap("a", 1)], false, 3)).toEqual({ now: 1, laterDeleted: [] });
  });
});
