/**
 * Sidecar benchmark: `npm run bench -- sidecar [--idle-seconds 20]`
 *  1. the bundled sidecar with an idle daemon, shipped timings: resident memory and CPU
 *     while idle, on an empty workspace and on a 100,000-file one, next to the anchor — a
 *     bare Node HTTP server measured the same way in the same run (docs/sidecar.md, "Memory":
 *     the sidecar's goal is within 8 MB of it);
 *  2. CPU of tracking activity on that 100,000-file workspace: the sidecar's tracker vs a
 *     full directory walk (and Node's own recursive watch, and the bounded fallback scan).
 * Everything runs in a temp dir that is removed afterwards.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { build } from "esbuild";
import { freePort, removeDir, sleep, tempDir, waitFor } from "../../tests/support/sidecar-harness";
import type { ActivityResult } from "./sidecar-activity";

const args = process.argv.slice(2);
const idleAt = args.indexOf("--idle-seconds");
const IDLE_SECONDS = idleAt >= 0 ? Number(args[idleAt + 1]) : 20;
/** `--memory-only`: the idle memory table (bare Node vs the sidecar) without the 100,000-file parts. */
const MEMORY_ONLY = args.includes("--memory-only");
const FILES = 100_000;
const WARMUP_MS = 10_000;
const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
const here = join(process.cwd(), "scripts", "bench");

/** 10 × 100 directories of 100 files each. */
function generate(root: string): void {
  for (let d = 0; d < 10; d++) {
    for (let s = 0; s < 100; s++) {
      const dir = join(root, `d${d}`, `s${s}`);
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < FILES / 1000; f++) writeFileSync(join(dir, `f${f}.txt`), "x");
    }
  }
}

function procCpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(f[11]) + Number(f[12]); // utime + stime
}

function procRssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

interface IdleResult {
  workspace: string;
  rssMb: number;
  cpuPercent: number;
  cpuMsPerMinute: number;
  heartbeats: number;
}

async function idleSidecar(work: string, root: string, label: string): Promise<IdleResult> {
  let heartbeats = 0;
  const parent = createServer((req, res) => {
    heartbeats++;
    req.resume();
    req.on("end", () => res.end('{"action":"none","reason":"bench"}'));
  });
  await new Promise<void>((r) => parent.listen(0, "127.0.0.1", r));
  const dir = join(work, `bundle-${label}`);
  mkdirSync(dir);
  copyFileSync(join(process.cwd(), "build", "bundles", "sidecar.js"), join(dir, "sidecar.js"));
  const idleDaemon = `require("node:http").createServer((q, s) => s.end()).listen(Number(process.env.PORT), "127.0.0.1")`;
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      sandboxId: `sbx_bench_${label}`,
      root,
      sandboxCreatedAt: Date.now(),
      parentUrl: `http://127.0.0.1:${(parent.address() as AddressInfo).port}`,
      daemon: { command: process.execPath, args: ["-e", idleDaemon] },
    }),
  );
  const child: ChildProcess = spawn(process.execPath, ["sidecar.js", "config.json"], {
    cwd: dir,
    detached: true,
    stdio: "ignore",
    env: {
      ...process.env,
      CLAWRUN_HB_SECRET: "bench-secret-0123456789",
      CLAWRUN_PORT_3000: String(await freePort()),
      CLAWRUN_PORT_3001: String(await freePort()),
    },
  });
  const pid = child.pid as number;
  try {
    const log = join(root, "logs", "sidecar.log");
    // Idle means: daemon running and the activity watches in place.
    await waitFor(
      "sidecar settled",
      () =>
        existsSync(log) &&
        /daemon status: running/.test(readFileSync(log, "utf8")) &&
        /activity: (watching|.*scanning)/.test(readFileSync(log, "utf8")),
      60_000,
      100,
    );
    // Startup JIT and GC settle within seconds; idle is what follows.
    await sleep(WARMUP_MS);
    const ticks0 = procCpuTicks(pid);
    const t0 = Date.now();
    let rss = 0;
    while (Date.now() - t0 < IDLE_SECONDS * 1000) {
      await sleep(1_000);
      rss = Math.max(rss, procRssMb(pid));
    }
    const cpuMs = ((procCpuTicks(pid) - ticks0) * 1000) / CLK_TCK;
    const wall = Date.now() - t0;
    return {
      workspace: label,
      rssMb: rss,
      cpuPercent: (cpuMs / wall) * 100,
      cpuMsPerMinute: (cpuMs * 60_000) / wall,
      heartbeats,
    };
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    parent.close();
  }
}

/** The anchor: a bare Node HTTP server, idle, sampled exactly like the sidecar. */
async function idleBareNode(): Promise<IdleResult> {
  const port = await freePort();
  const script = `require("node:http").createServer((q, s) => s.end("ok")).listen(${port}, "0.0.0.0")`;
  const child: ChildProcess = spawn(process.execPath, ["-e", script], {
    detached: true,
    stdio: "ignore",
  });
  const pid = child.pid as number;
  try {
    await waitFor("bare server listening", async () => {
      try {
        return (await fetch(`http://127.0.0.1:${port}/`)).ok;
      } catch {
        return false;
      }
    });
    await sleep(WARMUP_MS);
    const ticks0 = procCpuTicks(pid);
    const t0 = Date.now();
    let rss = 0;
    while (Date.now() - t0 < IDLE_SECONDS * 1000) {
      await sleep(1_000);
      rss = Math.max(rss, procRssMb(pid));
    }
    const cpuMs = ((procCpuTicks(pid) - ticks0) * 1000) / CLK_TCK;
    const wall = Date.now() - t0;
    return {
      workspace: "bare Node HTTP server (anchor)",
      rssMb: rss,
      cpuPercent: (cpuMs / wall) * 100,
      cpuMsPerMinute: (cpuMs * 60_000) / wall,
      heartbeats: 0,
    };
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
}

/** The worker is bundled and run with plain node: tsx's own background work would skew idle CPU. */
async function bundleWorker(work: string): Promise<string> {
  const outfile = join(work, "activity-worker.js");
  await build({
    entryPoints: [join(here, "sidecar-activity.ts")],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    logLevel: "warning",
  });
  return outfile;
}

function activityWorker(worker: string, kind: string, root: string): ActivityResult {
  const out = execFileSync(process.execPath, [worker, kind, root, "10000"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split("\n").at(-1) as string) as ActivityResult;
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [
    line(head),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.map(line),
  ].join("\n");
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ["--import", "tsx", "scripts/bundle.ts"], { stdio: "inherit" });
  const work = tempDir("clawrun-bench-");
  try {
    const big = join(work, "big");
    const empty = join(work, "empty");
    mkdirSync(empty);
    if (!MEMORY_ONLY) {
      const g0 = Date.now();
      generate(big);
      console.log(`generated ${FILES} files in 1,010 directories in ${Date.now() - g0} ms`);
    }

    console.log(
      `\nidle sidecar, seed timings, ${IDLE_SECONDS} s each after ${WARMUP_MS / 1000} s warm-up (node ${process.version})`,
    );
    const [bare, ...idle] = await Promise.all([
      idleBareNode(),
      idleSidecar(work, empty, "empty"),
      ...(MEMORY_ONLY ? [] : [idleSidecar(work, big, "100k files")]),
    ]);
    const anchor = bare as IdleResult;
    console.log(
      table(
        ["process", "RSS (MB)", "RSS over bare Node (MB)", "CPU %", "CPU ms/min", "heartbeats"],
        [anchor, ...idle].map((r) => [
          r === anchor ? r.workspace : `sidecar, ${r.workspace} workspace`,
          r.rssMb.toFixed(1),
          r === anchor ? "-" : (r.rssMb - anchor.rssMb).toFixed(1),
          r.cpuPercent.toFixed(3),
          r.cpuMsPerMinute.toFixed(1),
          String(r.heartbeats),
        ]),
      ),
    );
    const emptyOver = (idle[0] as IdleResult).rssMb - anchor.rssMb;
    console.log(
      `goal: the sidecar within 8 MB of a bare Node HTTP server: ${emptyOver.toFixed(1)} MB over → ${emptyOver <= 8 ? "met" : "NOT met"}`,
    );

    if (MEMORY_ONLY) return;
    console.log(
      `\nactivity tracking on ${FILES} files (each in its own process; idle window 10 s after 10 s settling)`,
    );
    const worker = await bundleWorker(work);
    const results = ["watch", "scan", "walk", "node-recursive"].map((k) =>
      activityWorker(worker, k, big),
    );
    console.log(
      table(
        ["approach", "setup CPU ms", "steady CPU ms/min", "RSS MB", "notes"],
        results.map((r) => [
          r.approach,
          r.setupCpuMs.toFixed(0),
          r.cpuMsPerMinute.toFixed(1),
          String(r.rssMb),
          r.note,
        ]),
      ),
    );
  } finally {
    removeDir(work);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
