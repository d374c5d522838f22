import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import pino from "pino";
import { LocalProvider } from "../../src/server/providers/local/local-provider";
import { detectFormat } from "../../src/server/providers/local/snapshot-archive";
import type { ManagedSandbox } from "../../src/server/providers/types";

/**
 * Local provider snapshot (freeze + tar + zstd, atomic publish) and restore (create from
 * snapshot: extract + ports + watchdog) against two anchors on the same generated tree in the
 * same run: plain `tar --zstd` at our compression level (level 3, all cores — the fair
 * comparison: same codec) and `tar -czf` / `tar -xzf` (gzip, what most tools do).
 * Medians of BENCH_RUNS runs (default 3), page cache warm.
 *   npx tsx scripts/bench/snapshot.ts   (BENCH_FILES, BENCH_MB, BENCH_RUNS to change the tree)
 */

const FILES = Number(process.env.BENCH_FILES ?? 20_000);
const TOTAL_BYTES = Number(process.env.BENCH_MB ?? 100) * 1024 * 1024;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const run = promisify(execFile);
/** `tar --zstd` runs `zstd` with its defaults; these make it our level (-3) and threads (-T0). */
const ZSTD_ENV = { ...process.env, ZSTD_CLEVEL: "3", ZSTD_NBTHREADS: "0" };

/** Deterministic PRNG (mulberry32) so every run generates the same tree. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = "agent sandbox message snapshot heartbeat daemon channel cron wake sleep tool".split(
  " ",
);

/** Half the files look like logs/JSON (compress well), half are random bytes (do not). */
function content(random: () => number, size: number, compressible: boolean): Buffer {
  const buf = Buffer.alloc(size);
  if (!compressible) {
    for (let i = 0; i < size; i++) buf[i] = Math.floor(random() * 256);
    return buf;
  }
  let line = "";
  let at = 0;
  while (at < size) {
    const word = WORDS[Math.floor(random() * WORDS.length)] ?? "x";
    line = `{"t":${Math.floor(random() * 1e9)},"event":"${word}","n":${at}}\n`;
    at += buf.write(line, at);
  }
  return buf;
}

/** FILES files of random sizes averaging TOTAL_BYTES / FILES, in 20 × 10 nested directories. */
async function generateTree(root: string): Promise<{ files: number; bytes: number }> {
  const random = prng(42);
  const mean = TOTAL_BYTES / FILES;
  let bytes = 0;
  for (let i = 0; i < FILES; i++) {
    const dir = join(
      root,
      `d${i % 20}`,
      `s${Math.floor(i / 20) % 10}`,
      i % 3 === 0 ? "deep/er" : "",
    );
    if (i < 600) await mkdir(dir, { recursive: true });
    const size =
      i === FILES - 1
        ? Math.max(0, TOTAL_BYTES - bytes)
        : Math.floor(mean * (0.2 + 1.6 * random()));
    await writeFile(
      join(dir, `f${i}.${i % 2 ? "bin" : "log"}`),
      content(random, size, i % 2 === 0),
    );
    bytes += size;
  }
  return { files: FILES, bytes };
}

async function treeStats(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return { files, bytes };
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const value = await fn();
  return [(performance.now() - start) / 1000, value];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
/** Median, with the spread of the runs: the numbers move with whatever else the machine does. */
const secs = (xs: number[]) =>
  `${median(xs).toFixed(2)} s (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;

async function main(): Promise<void> {
  // The provider starts the bundled watchdog, so make sure the bundle is current.
  await run(process.execPath, ["--import", "tsx", "scripts/bundle.ts"]);
  const work = await mkdtemp(join(tmpdir(), "clawrun-bench-snapshot-"));
  const provider = new LocalProvider({
    stateDir: join(work, "state"),
    logger: pino({ level: "warn" }),
  });
  const sandboxes: ManagedSandbox[] = [];
  try {
    const source = await provider.create({ timeoutMs: 60 * 60_000, ports: [3000, 3001] });
    sandboxes.push(source);
    const tree = await generateTree(source.root);
    console.log(`tree: ${tree.files} files, ${mb(tree.bytes)} in ${source.root}`);

    const ours = { capture: [] as number[], restore: [] as number[], size: 0 };
    const gz = { capture: [] as number[], restore: [] as number[], size: 0 };
    const zst = { capture: [] as number[], restore: [] as number[], size: 0 };
    // Nothing is deleted until the end and dirty pages are flushed before each timed step:
    // on this kind of disk a big rm or pending writeback slows the next step by seconds.
    for (let i = 0; i < RUNS; i++) {
      await run("sync");
      const [captureS, snap] = await timed(() => source.snapshot());
      ours.capture.push(captureS);
      ours.size = (await provider.listSnapshots()).find((s) => s.id === snap.id)?.sizeBytes ?? 0;
      await run("sync");
      const [restoreS, restored] = await timed(() =>
        provider.create({ timeoutMs: 60 * 60_000, ports: [3000], snapshotId: snap.id }),
      );
      sandboxes.push(restored);
      ours.restore.push(restoreS);
      const check = await treeStats(restored.root);
      if (check.files !== tree.files || check.bytes !== tree.bytes) {
        throw new Error(
          `restored tree differs: ${JSON.stringify(check)} vs ${JSON.stringify(tree)}`,
        );
      }

      const zArchive = join(work, `anchor-${i}.tar.zst`);
      await run("sync");
      const [zC] = await timed(() =>
        run("tar", ["--zstd", "-cf", zArchive, "-C", source.root, "."], { env: ZSTD_ENV }),
      );
      zst.capture.push(zC);
      zst.size = (await stat(zArchive)).size;
      const zDest = join(work, `anchor-${i}`);
      await mkdir(zDest);
      await run("sync");
      const [zX] = await timed(() =>
        run("tar", ["--zstd", "-xf", zArchive, "-C", zDest], { env: ZSTD_ENV }),
      );
      zst.restore.push(zX);

      const archive = join(work, `baseline-${i}.tar.gz`);
      await run("sync");
      const [tarC] = await timed(() => run("tar", ["-czf", archive, "-C", source.root, "."]));
      gz.capture.push(tarC);
      gz.size = (await stat(archive)).size;
      const dest = join(work, `baseline-${i}`);
      await mkdir(dest);
      await run("sync");
      const [tarX] = await timed(() => run("tar", ["-xzf", archive, "-C", dest]));
      gz.restore.push(tarX);
    }

    const ratio = (theirs: number[], mine: number[]) =>
      `${(median(theirs) / median(mine)).toFixed(1)}×`;
    const rows = [
      [
        "",
        `local provider (${detectFormat()})`,
        "tar --zstd (level 3, -T0)",
        "tar -czf / -xzf",
        "÷ ours: zstd",
        "÷ ours: gzip",
      ],
      [
        "snapshot / archive",
        secs(ours.capture),
        secs(zst.capture),
        secs(gz.capture),
        ratio(zst.capture, ours.capture),
        ratio(gz.capture, ours.capture),
      ],
      [
        "restore / extract",
        secs(ours.restore),
        secs(zst.restore),
        secs(gz.restore),
        ratio(zst.restore, ours.restore),
        ratio(gz.restore, ours.restore),
      ],
      [
        "archive size",
        mb(ours.size),
        mb(zst.size),
        mb(gz.size),
        `${(zst.size / ours.size).toFixed(2)}×`,
        `${(gz.size / ours.size).toFixed(2)}×`,
      ],
    ];
    const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length))) ?? [];
    const line = (r: string[]) =>
      `| ${r.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(" | ")} |`;
    console.log(
      `\nmedian (min–max) of ${RUNS} runs; restore includes creating the sandbox (ports, watchdog)\n`,
    );
    console.log(line(rows[0] ?? []));
    console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
    for (const r of rows.slice(1)) console.log(line(r));
  } finally {
    await Promise.allSettled(sandboxes.map((s) => s.stop()));
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
