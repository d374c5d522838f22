import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
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

/** Browser and HTTP tests run against `next build && next start`, like production. */
export function ensureNextBuild(): void {
  const hash = hashInputs();
  const fresh = () =>
    existsSync(join(".next", "BUILD_ID")) &&
    existsSync(STAMP) &&
    readFileSync(STAMP, "utf8") === hash;
  if (fresh()) return;
  withBuildLock(() => {
    if (fresh()) return; // another test run built it while we waited
    console.log("building the Next.js app for the HTTP and browser tests ...");
    execFileSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    writeFileSync(STAMP, hash);
  });
}

/** Two test runs at once must not build into the same .next directory. */
function withBuildLock(fn: () => void): void {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      const held = statSync(LOCK, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 5 * 60_000)
        rmSync(LOCK, { recursive: true, force: true }); // a crashed builder
      if (Date.now() > deadline) throw new Error(`${LOCK} is held by another build`);
      execFileSync("sleep", ["1"]);
    }
  }
  try {
    fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
