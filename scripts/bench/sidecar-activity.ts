/**
 * Worker for scripts/bench/sidecar.ts: measures ONE way of tracking file activity on a
 * given tree, in its own process so the numbers (CPU time, RSS) are not mixed up.
 *   tsx scripts/bench/sidecar-activity.ts <watch|scan|walk|node-recursive> <root> <idleMs>
 * Prints one JSON line.
 */
import { type FSWatcher, readdirSync, readFileSync, watch, writeFileSync } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { SIDECAR_TIMINGS } from "../../src/protocol/sidecar-config";
import { BoundedScanner } from "../../src/sidecar/activity-scan";
import { ActivityTracker, DEFAULT_MAX_SCAN_ENTRIES } from "../../src/sidecar/activity-tracker";

export interface ActivityResult {
  approach: string;
  setupCpuMs: number;
  setupWallMs: number;
  /** CPU per minute in steady state, at the shipped periods (heartbeat 60 s, fallback scan 30 s). */
  cpuMsPerMinute: number;
  rssMb: number;
  note: string;
}

const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;
const rssMb = (): number => Math.round(process.memoryUsage().rss / 1048576);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quiet = { info() {}, warn() {}, error() {} };

/** inotify watches this process holds, from /proc/self/fdinfo (one "inotify wd:" line each). */
function inotifyWatches(): number {
  let count = 0;
  for (const fd of readdirSync("/proc/self/fdinfo")) {
    try {
      const info = readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
      count += info.split("\n").filter((l) => l.startsWith("inotify wd:")).length;
    } catch {
      // fd closed meanwhile
    }
  }
  return count;
}

/** What a naive tracker would do on every heartbeat: stat every entry of the tree. */
async function fullWalk(root: string): Promise<{ newest: number; entries: number }> {
  let newest = 0;
  let entries = 0;
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      newest = Math.max(newest, (await lstat(p)).mtimeMs);
      entries++;
      if (e.isDirectory()) stack.push(p);
    }
  }
  return { newest, entries };
}

/** Starts something, then measures its CPU over an idle window. */
async function measure(
  approach: string,
  setup: () => Promise<string>,
  idleMs: number,
): Promise<ActivityResult> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const note = await setup();
  const setupCpuMs = cpuMs(process.cpuUsage(c0));
  const setupWallMs = performance.now() - t0;
  // V8 collects the setup's garbage (memory reducer) seconds later: keep it out of the idle window.
  await sleep(10_000);
  const c1 = process.cpuUsage();
  await sleep(idleMs);
  const idleCpu = cpuMs(process.cpuUsage(c1));
  return {
    approach,
    setupCpuMs,
    setupWallMs,
    cpuMsPerMinute: (idleCpu * 60_000) / idleMs,
    rssMb: rssMb(),
    note,
  };
}

async function run(kind: string, root: string, idleMs: number): Promise<ActivityResult> {
  if (kind === "watch") {
    const tracker = new ActivityTracker({
      root,
      ignore: [],
      initial: 0,
      fallbackScanMs: SIDECAR_TIMINGS.activityFallbackScanMs,
      log: quiet,
    });
    const result = await measure(
      "sidecar tracker (inotify, 1 watch per dir)",
      async () => {
        await tracker.start();
        return `mode=${tracker.mode}, ${inotifyWatches()} inotify watches`;
      },
      idleMs,
    );
    // Sanity: a deep write is seen, and how fast.
    const before = tracker.lastChangedAt;
    const t = performance.now();
    writeFileSync(join(root, "d0", "s0", "f0.txt"), "changed");
    while (tracker.lastChangedAt === before && performance.now() - t < 5_000) await sleep(1);
    result.note += `, change seen in ${(performance.now() - t).toFixed(1)} ms`;
    tracker.stop();
    return result;
  }
  if (kind === "scan") {
    // Fallback: one bounded scan every activityFallbackScanMs (30 s) = 2 per minute.
    const scanner = new BoundedScanner(root, () => false, DEFAULT_MAX_SCAN_ENTRIES);
    let scans = 0;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let done = false; !done; scans++) done = (await scanner.scan()).passComplete;
    const passCpu = cpuMs(process.cpuUsage(c0));
    const perScan = passCpu / scans;
    return {
      approach: `fallback scan (≤${DEFAULT_MAX_SCAN_ENTRIES} entries / 30 s)`,
      setupCpuMs: 0,
      setupWallMs: 0,
      cpuMsPerMinute: perScan * (60_000 / SIDECAR_TIMINGS.activityFallbackScanMs),
      rssMb: rssMb(),
      note: `${perScan.toFixed(0)} ms CPU per scan; full pass = ${scans} scans (${(performance.now() - t0).toFixed(0)} ms wall)`,
    };
  }
  if (kind === "walk") {
    // One walk per heartbeat tick (60 s) is what "never a full walk per tick" avoids.
    await fullWalk(root); // warm-up, same cache state as the others
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const { entries } = await fullWalk(root);
    const walkCpu = cpuMs(process.cpuUsage(c0));
    return {
      approach: "full walk (stat every entry) per 60 s tick",
      setupCpuMs: 0,
      setupWallMs: 0,
      cpuMsPerMinute: walkCpu * (60_000 / SIDECAR_TIMINGS.heartbeatIntervalMs),
      rssMb: rssMb(),
      note: `${walkCpu.toFixed(0)} ms CPU, ${(performance.now() - t0).toFixed(0)} ms wall per walk of ${entries} entries`,
    };
  }
  if (kind === "node-recursive") {
    let watcher: FSWatcher | null = null;
    const result = await measure(
      "node fs.watch({ recursive: true })",
      async () => {
        watcher = watch(root, { recursive: true }, () => {});
        return `${inotifyWatches()} inotify watches (a stat and a watch per file at start)`;
      },
      idleMs,
    );
    (watcher as FSWatcher | null)?.close();
    return result;
  }
  throw new Error(`unknown approach ${kind}`);
}

const [kind, root, idle] = process.argv.slice(2);
if (!kind || !root) {
  console.error("usage: sidecar-activity.ts <watch|scan|walk|node-recursive> <root> [idleMs]");
  process.exit(2);
}
run(kind, root, Number(idle ?? 5_000)).then(
  (r) => {
    console.log(JSON.stringify(r));
    process.exit(0);
  },
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
