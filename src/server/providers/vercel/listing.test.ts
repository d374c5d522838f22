import { describe, expect, it } from "vitest";
import {
  namedSnapshots,
  ownedSnapshots,
  type SandboxRecord,
  stoppedToPrune,
  toSummary,
} from "./listing";
import { OWNER_TAG } from "./naming";

const sandbox = (name: string, over: Partial<SandboxRecord> = {}): SandboxRecord => ({
  name,
  status: "stopped",
  createdAt: 1_000,
  currentSessionId: `sess_${name}`,
  tags: { [OWNER_TAG]: "main" },
  ...over,
});
const snap = (id: string, session: string, createdAt: number, status = "created" as const) => ({
  id,
  sourceSessionId: session,
  status,
  sizeBytes: 100,
  createdAt,
});

describe("listing", () => {
  it("a summary shows the caller's labels, not the ownership tag; aborted is failed", () => {
    const s = sandbox("a", { status: "aborted", tags: { [OWNER_TAG]: "main", instance: "main" } });
    expect(toSummary(s)).toEqual({
      id: "a",
      status: "failed",
      createdAt: 1_000,
      labels: { instance: "main" },
    });
  });

  it("snapshot mode owns the usable snapshots taken from its sandboxes' sessions, newest first", () => {
    const mine = [sandbox("a"), sandbox("b")];
    const all = [
      snap("s1", "sess_a", 10),
      snap("s2", "sess_b", 30),
      snap("s3", "sess_other", 40), // another instance's, or not ClawRun's at all
      { ...snap("s4", "sess_a", 50), status: "deleted" as const },
      snap("s5", "sess_a", 20),
    ];
    expect(ownedSnapshots(mine, all).map((s) => [s.id, s.sourceSandboxId])).toEqual([
      ["s2", "b"],
      ["s5", "a"],
      ["s1", "a"],
    ]);
  });

  it("reports expiry: a date, or null for never", () => {
    const [withExpiry, without] = namedSnapshots("main", [
      { ...snap("s1", "x", 20), expiresAt: 99 },
      snap("s2", "y", 10),
    ]);
    expect(withExpiry).toMatchObject({
      id: "s1",
      sourceSandboxId: "main",
      expiresAt: 99,
      sizeBytes: 100,
    });
    expect(without?.expiresAt).toBeNull();
  });

  it("prunes stopped sandboxes without snapshots beyond the newest `keep`", () => {
    const sandboxes = [
      sandbox("old-with-snapshot", { createdAt: 1 }),
      sandbox("old", { createdAt: 2 }),
      sandbox("mid", { createdAt: 3, status: "failed" }),
      sandbox("new", { createdAt: 4 }),
      sandbox("running", { createdAt: 0, status: "running" }),
    ];
    const snapshots = ownedSnapshots(sandboxes, [snap("s1", "sess_old-with-snapshot", 5)]);
    expect(stoppedToPrune(sandboxes, snapshots, 1)).toEqual(["mid", "old"]);
    expect(stoppedToPrune(sandboxes, snapshots, 0)).toEqual(["new", "mid", "old"]);
    expect(stoppedToPrune(sandboxes, snapshots, 5)).toEqual([]);
  });
});
