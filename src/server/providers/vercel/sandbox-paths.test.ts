import { describe, expect, it } from "vitest";
import { PathEscapeError } from "../types";
import { isSandboxName, isSnapshotId, persistentName, snapshotModeName, tagsFor } from "./naming";
import { resolveSandboxPath } from "./sandbox-paths";

const root = "/vercel/sandbox";

describe("paths inside the sandbox root", () => {
  it.each([
    ["notes/a.txt", "/vercel/sandbox/notes/a.txt"],
    [".", "/vercel/sandbox"],
    ["./bin/../x", "/vercel/sandbox/x"],
    ["/vercel/sandbox/a//b/", "/vercel/sandbox/a/b"],
    ["/vercel/sandbox", "/vercel/sandbox"],
  ])("%s → %s", (path, absolute) => {
    expect(resolveSandboxPath(root, path)).toBe(absolute);
  });

  it.each([["../x"], ["a/../../x"], ["/etc/passwd"], ["/vercel/sandboxes/x"], ["/"], ["a\0b"]])(
    "refuses %s",
    (path) => {
      expect(() => resolveSandboxPath(root, path)).toThrow(PathEscapeError);
    },
  );
});

describe("names", () => {
  it("derives the persistent name from the instance and makes unique snapshot-mode names", () => {
    expect(persistentName("main")).toBe("clawrun-main");
    const a = snapshotModeName("main");
    expect(a).toMatch(/^clawrun-main-[a-z0-9]+$/);
    expect(snapshotModeName("main")).not.toBe(a);
    expect(isSandboxName(a)).toBe(true);
  });

  it("keeps ids that would change the SDK's URL path away from it", () => {
    for (const id of ["../x", "a/b", "a?b", "", "x".repeat(129)]) {
      expect(isSandboxName(id)).toBe(false);
      expect(isSnapshotId(id)).toBe(false);
    }
    expect(isSnapshotId("snap_0mx4uqj245589ca9f6c1c")).toBe(true);
  });

  it("tags a sandbox with its instance besides the caller's labels", () => {
    expect(tagsFor("main", { instance: "main", who: "x" })).toEqual({
      instance: "main",
      who: "x",
      "clawrun-instance": "main",
    });
  });
});
