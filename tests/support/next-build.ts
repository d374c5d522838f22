import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What the production build is made of; tests rebuild only when one of these changed. */
const INPUTS = [
  "app",
  "src",
  "next.config.ts",
  "instrumentation.ts",
  "proxy.ts",
  "package-lock.json",
  "tsconfig.json",
];
const STAMP = join(".next", "clawrun-source-hash");
/** The operator CLI is not part of the Next app (tests/architecture.test.ts keeps it so). */
const OUTSIDE_THE_APP = join("src", "cli");

function hashInputs(): string {
  const hash = createHash("sha256");
  const visit = (path: string) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path).sort()) visit(join(path, entry));
    } else if (!/\.test\.tsx?$/.test(path) && !path.startsWith(OUTSIDE_THE_APP)) {
      hash.update(path).update(readFileSync(path));
    }
  };
  for (const input of INPUTS) visit(input);
  return hash.digest("hex");
}

const LOCK = ".next-build.lock";
/** Written by a background build that failed: what servers waiting for it report. */
const FAILED = ".next-build.failed";

function isFresh(hash: string): boolean {
  return (
    existsSync(join(".next", "BUILD_ID")) &&
    existsSync(STAMP) &&
    readFileSync(STAMP, "utf8") === hash
  );
}

/** Browser and HTTP tests run against `next build && next start`, like production. */
export function ensureNextBuild(): void {
  const hash = hashInputs();
  if (isFresh(hash)) return;
  withBuildLock(() => {
    if (isFresh(hash)) return; // another test run built it while we waited
    console.log("building the Next.js app for the HTTP and browser tests ...");
    execFileSync(process.execPath, NEXT_BUILD, {
      stdio: ["ignore", "inherit", "inherit"],
      env: buildEnv(),
    });
    writeFileSync(STAMP, hash);
  });
}

const NEXT_BUILD = ["node_modules/next/dist/bin/next", "build"];
const buildEnv = () => ({ ...process.env, NEXT_TELEMETRY_DISABLED: "1" });

/**
 * The test run's build, started in the background so the tests that need no server (most of
 * them) run while it builds; `waitForNextBuild()` holds the others until it is done. Resolves
 * when the build is over (at once when the build is fresh); never rejects: a failure is left
 * in FAILED for the waiting tests to report.
 */
export function startNextBuild(): Promise<void> {
  const hash = hashInputs();
  if (isFresh(hash)) return Promise.resolve();
  takeBuildLock();
  rmSync(FAILED, { force: true });
  const log = join(tmpdir(), `clawrun-next-build-${process.pid}.log`);
  console.log(`building the Next.js app in the background (log: ${log}) ...`);
  const out = openSync(log, "w");
  const child = spawn(process.execPath, NEXT_BUILD, {
    stdio: ["ignore", out, out],
    env: buildEnv(),
  });
  // A lock older than 5 minutes reads as a crashed builder's: keep this one young.
  const keepAlive = setInterval(() => utimesSync(LOCK, new Date(), new Date()), 30_000);
  return new Promise((resolve) => {
    const finish = (failure: string | null) => {
      clearInterval(keepAlive);
      closeSync(out);
      if (failure === null) writeFileSync(STAMP, hash);
      else writeFileSync(FAILED, `${failure}\n${tail(readFileSync(log, "utf8"), 4000)}`);
      rmSync(LOCK, { recursive: true, force: true });
      resolve();
    };
    child.once("error", (err) => finish(`next build could not start: ${err.message}`));
    child.once("exit", (code, signal) =>
      finish(code === 0 ? null : `next build exited with ${code ?? signal} (log: ${log})`),
    );
  });
}

/**
 * Waits until no build is running (tests/global-setup.ts may have one in the background), then
 * checks there is a build to serve: a test that needs the production server calls this first.
 */
export async function waitForNextBuild(timeoutMs = 20 * 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (existsSync(LOCK)) {
    if (Date.now() > deadline) throw new Error(`the Next.js build (${LOCK}) did not finish`);
    await new Promise((r) => setTimeout(r, 250));
  }
  if (existsSync(FAILED)) throw new Error(readFileSync(FAILED, "utf8"));
  if (!existsSync(join(".next", "BUILD_ID")))
    throw new Error("no production build in .next: run `npm run build` (or the test suite) first");
}

function tail(text: string, chars: number): string {
  return text.length > chars ? text.slice(-chars) : text;
}

/** Takes the build lock, waiting while another test run builds (or removing a crashed one's). */
function takeBuildLock(): void {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      return;
    } catch {
      const held = statSync(LOCK, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 5 * 60_000)
        rmSync(LOCK, { recursive: true, force: true }); // a crashed builder
      if (Date.now() > deadline) throw new Error(`${LOCK} is held by another build`);
      execFileSync("sleep", ["1"]);
    }
  }
}

/** Two test runs at once must not build into the same .next directory. */
function withBuildLock(fn: () => void): void {
  takeBuildLock();
  try {
    fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
