import { mkdirSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryLog, removeDir, sleep, tempDir, waitFor } from "../../tests/support/sidecar-harness";
import { BoundedScanner } from "./activity-scan";
import { ActivityTracker, ignoreMatcher, normalizeIgnore } from "./activity-tracker";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** A workspace with nested directories and the housekeeping ones, created before tracking. */
function workspace(): string {
  const root = tempDir();
  cleanups.push(() => removeDir(root));
  for (const d of ["a/b/c", "logs", ".clawrun", "cache/deep", "notes"]) {
    mkdirSync(join(root, d), { recursive: true });
  }
  writeFileSync(join(root, "a/b/c/existing.txt"), "x");
  writeFileSync(join(root, "a/b/old.txt"), "x");
  // Older than the tracker's start, so a scan finds nothing new before the test acts.
  const past = new Date(Date.now() - 60_000);
  for (const p of ["a/b/c/existing.txt", "a/b/old.txt", "a/b/c", "a/b", "a", "notes", "."]) {
    utimesSync(join(root, p), past, past);
  }
  return root;
}

async function track(root: string, mode: "watch" | "scan") {
  const log = new MemoryLog();
  const tracker = new ActivityTracker({
    root,
    ignore: ["cache", "./notes/"],
    initial: Date.now() - 30_000,
    fallbackScanMs: 40,
    log,
    mode,
  });
  cleanups.push(() => tracker.stop());
  await tracker.start();
  await sleep(60); // let a scan pass record directory mtimes
  return { tracker, log };
}

/** Runs `act` and waits for lastChangedAt to move past its value before. */
async function expectAdvance(tracker: ActivityTracker, what: string, act: () => void) {
  const before = tracker.lastChangedAt;
  await sleep(5);
  act();
  await waitFor(what, () => tracker.lastChangedAt > before, 2_000);
}

/** Runs `act` and checks lastChangedAt stays put for a few scan periods / event deliveries. */
async function expectNoAdvance(tracker: ActivityTracker, act: () => void) {
  const before = tracker.lastChangedAt;
  act();
  await sleep(250);
  expect(tracker.lastChangedAt).toBe(before);
}

describe.each(["watch", "scan"] as const)("ActivityTracker (%s)", (mode) => {
  it("starts at the initial value and advances on create, modify, delete and rename", async () => {
    const root = workspace();
    const { tracker } = await track(root, mode);
    expect(tracker.mode).toBe(mode);
    await expectNoAdvance(tracker, () => {});
    await expectAdvance(tracker, "create", () => writeFileSync(join(root, "a/b/c/new.txt"), "1"));
    await expectAdvance(tracker, "modify", () =>
      writeFileSync(join(root, "a/b/c/existing.txt"), "changed"),
    );
    await expectAdvance(tracker, "delete", () => rmSync(join(root, "a/b/old.txt")));
    await expectAdvance(tracker, "rename", () =>
      renameSync(join(root, "a/b/c/new.txt"), join(root, "a/b/c/renamed.txt")),
    );
    await expectAdvance(tracker, "new nested dir", () =>
      mkdirSync(join(root, "a/x/y/z"), { recursive: true }),
    );
    // A directory created after start is tracked too.
    await sleep(60);
    await expectAdvance(tracker, "file in new dir", () =>
      writeFileSync(join(root, "a/x/y/z/f"), "1"),
    );
    expect(tracker.lastChangedAt).toBeLessThanOrEqual(Date.now());
  });

  it("ignores logs/, .clawrun/ and configured paths", async () => {
    const root = workspace();
    const { tracker } = await track(root, mode);
    await expectNoAdvance(tracker, () => {
      writeFileSync(join(root, "logs/sidecar.log"), "line\n");
      renameSync(join(root, "logs/sidecar.log"), join(root, "logs/sidecar.log.1"));
      writeFileSync(join(root, ".clawrun/config.json"), "{}");
      writeFileSync(join(root, "cache/deep/blob"), "x");
      mkdirSync(join(root, "cache/deep/more"));
      writeFileSync(join(root, "notes/n.txt"), "x");
    });
    // Control: the same tracker does see a change outside the ignored paths.
    await expectAdvance(tracker, "control", () => writeFileSync(join(root, "a/seen.txt"), "x"));
  });
});

describe("ActivityTracker fallback", () => {
  it("falls back to scanning when the root cannot be watched", async () => {
    const parent = tempDir();
    cleanups.push(() => removeDir(parent));
    const root = join(parent, "missing");
    const log = new MemoryLog();
    const tracker = new ActivityTracker({
      root,
      ignore: [],
      initial: 5,
      fallbackScanMs: 1_000,
      log,
    });
    cleanups.push(() => tracker.stop());
    await tracker.start();
    expect(tracker.mode).toBe("scan");
    expect(tracker.lastChangedAt).toBe(5);
    expect(log.has(/WARN activity: watching unavailable \(ENOENT/)).toBe(true);
  });
});

describe("BoundedScanner", () => {
  it("visits at most maxEntries per scan and resumes where it stopped", async () => {
    const root = tempDir();
    cleanups.push(() => removeDir(root));
    for (let d = 0; d < 5; d++) {
      mkdirSync(join(root, `d${d}`));
      for (let f = 0; f < 20; f++) writeFileSync(join(root, `d${d}/f${f}`), "");
    }
    const scanner = new BoundedScanner(root, () => false, 30);
    const visits: number[] = [];
    let complete = false;
    for (let i = 0; i < 10 && !complete; i++) {
      const r = await scanner.scan();
      visits.push(r.visited);
      complete = r.passComplete;
    }
    expect(complete).toBe(true);
    expect(Math.max(...visits)).toBeLessThanOrEqual(30);
    // root + 5 dirs + 100 files, each visited once per pass
    expect(visits.reduce((a, b) => a + b, 0)).toBe(106);
  });
});

describe("ignore paths", () => {
  it("normalises relative and absolute entries", () => {
    expect(normalizeIgnore("/r", ["./a/", "/r/b/c", "/elsewhere", "", "..", "d"])).toEqual([
      "a",
      "b/c",
      "d",
    ]);
  });
  it("matches a path and what is under it, not siblings with the same prefix", () => {
    const ignored = ignoreMatcher(["logs", "a/b"]);
    expect(ignored("logs")).toBe(true);
    expect(ignored("logs/x/y")).toBe(true);
    expect(ignored("logsx")).toBe(false);
    expect(ignored("a/b/c")).toBe(true);
    expect(ignored("a/bc")).toBe(false);
  });
});
