import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CronExpressionParser } from "cron-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForNextBuild } from "./support/next-build";

/**
 * `vercel build` (the pinned CLI, offline: a local .vercel/project.json, no install step) on a
 * copy of the repository, then what Vercel would deploy, read from `.vercel/output`: nothing
 * the Hobby plan refuses (docs/deploy.md, "Function limits"). Takes about a minute.
 */

/** Vercel Functions Limits: Hobby's maximum duration (Fluid compute), in seconds. */
const HOBBY_MAX_DURATION_S = 300;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Routes whose work may create or wake a sandbox: they copy the in-sandbox bundles in. */
const PROVISIONING_ROUTES = [
  "api/cron",
  "api/heartbeat",
  "api/webhooks/[channel]",
  "api/sandbox",
  "api/sandbox/start",
  "api/sandbox/stop",
  "api/sandbox/workers",
];
const BUNDLES = ["build/bundles/sidecar.js", "build/bundles/agent-echo.js"];
/** Never copied: dependencies are hard-linked, build output is what the test makes. */
const SKIP = new Set([
  "node_modules",
  ".next",
  ".git",
  ".vercel",
  "build",
  ".clawrun",
  "test-results",
  ".next-build.lock",
]);

let dir: string;
let output: string;
let log = "";

beforeAll(async () => {
  // The run's shared build lends its Turbopack cache (below): wait for it if it is building.
  // Without one (a run that skips it) this build runs cold; its own errors are reported below.
  await waitForNextBuild().catch(() => undefined);
  dir = mkdtempSync(join(tmpdir(), "clawrun-vercel-build-"));
  for (const entry of readdirSync(".")) {
    if (!SKIP.has(entry)) cpSync(entry, join(dir, entry), { recursive: true });
  }
  // Hard links: the copy's dependencies cost no disk and no network.
  execFileSync("cp", ["-al", "node_modules", join(dir, "node_modules")]);
  // Turbopack's build cache from the run's shared build (tests/global-setup.ts), as Vercel
  // restores the previous deployment's: it halved this build (288 s against 549 s, side by side
  // under load 17). A copy, not hard links: the build rewrites its cache files in place. Only
  // Turbopack's part: the servers other tests run may write elsewhere in .next/cache meanwhile.
  const turbopackCache = join(".next", "cache", "turbopack");
  if (existsSync(turbopackCache))
    cpSync(turbopackCache, join(dir, turbopackCache), { recursive: true });
  mkdirSync(join(dir, ".vercel"));
  writeFileSync(
    join(dir, ".vercel", "project.json"),
    JSON.stringify({
      projectId: "prj_clawrun_build_test",
      orgId: "team_clawrun_build_test",
      // An empty install command skips `npm install`: the build runs offline.
      settings: { framework: "nextjs", installCommand: "" },
    }),
  );
  try {
    log = execFileSync(
      process.execPath,
      [join(dir, "node_modules", "vercel", "dist", "vc.js"), "build", "--yes"],
      {
        cwd: dir,
        env: {
          ...process.env,
          VERCEL_TELEMETRY_DISABLED: "1",
          NEXT_TELEMETRY_DISABLED: "1",
          NODE_ENV: "production",
        },
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 15 * 60_000,
      },
    );
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`vercel build failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
  output = join(dir, ".vercel", "output");
}, 20 * 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function vcConfigs(): { path: string; config: Record<string, unknown> }[] {
  const out: { path: string; config: Record<string, unknown> }[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory() && !e.isSymbolicLink()) {
        if (e.name.endsWith(".func"))
          out.push({
            path: p,
            config: JSON.parse(readFileSync(join(p, ".vc-config.json"), "utf8")),
          });
        else walk(p);
      }
    }
  };
  walk(join(output, "functions"));
  return out;
}

describe("vercel build", () => {
  it("ran offline and completed", () => {
    expect(log).toContain('Skipping "install" command');
    expect(existsSync(join(output, "config.json"))).toBe(true);
  });

  it("declares no cron that runs more than once a day (Hobby refuses those)", () => {
    const config = JSON.parse(readFileSync(join(output, "config.json"), "utf8"));
    expect(config.crons?.length).toBeGreaterThan(0);
    for (const cron of config.crons as { path: string; schedule: string }[]) {
      const it = CronExpressionParser.parse(cron.schedule, {
        currentDate: new Date("2026-01-01T00:00:00Z"),
        tz: "UTC",
      });
      const times = Array.from({ length: 8 }, () => it.next().getTime());
      const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
      expect({ cron, atLeastADayApart: Math.min(...gaps) >= DAY_MS }).toEqual({
        cron,
        atLeastADayApart: true,
      });
    }
  });

  it("rewrites each agent's URLs to the shared routes on Vercel (docs/several-agents.md)", () => {
    type Route = { src?: string; dest?: string; handle?: string };
    const { routes } = JSON.parse(readFileSync(join(output, "config.json"), "utf8")) as {
      routes: Route[];
    };
    // The rewrites Vercel applies before the filesystem: the first whose pattern matches.
    const firstHandle = routes.findIndex((r) => r.handle);
    const before = routes.slice(0, firstHandle === -1 ? routes.length : firstHandle);
    const rewrite = (path: string): string | null => {
      for (const r of before) {
        if (!r.src || !r.dest) continue;
        const m = new RegExp(r.src).exec(path);
        if (!m) continue;
        return r.dest.replace(/\$(\w+)/g, (_, k: string) =>
          /^\d+$/.test(k) ? (m[Number(k)] ?? "") : (m.groups?.[k] ?? ""),
        );
      }
      return null;
    };
    const seen = {
      overview: rewrite("/api/agents/team"),
      operator: rewrite("/api/agents/team/sandbox/stop"),
      heartbeat: rewrite("/agents/team/api/heartbeat"),
      gateway: rewrite("/agents/team/api/model/v1/chat/completions"),
    };
    const routesOf = (x: string | null) => new URL(x ?? "/none", "http://h").pathname;
    const agentOf = (x: string | null) =>
      new URL(x ?? "/none", "http://h").searchParams.get("agent");
    expect(
      Object.fromEntries(Object.entries(seen).map(([k, v]) => [k, [routesOf(v), agentOf(v)]])),
      JSON.stringify(before, null, 1).slice(0, 4000),
    ).toEqual({
      overview: ["/api/sandbox", "team"],
      operator: ["/api/sandbox/stop", "team"],
      heartbeat: ["/api/heartbeat", "team"],
      gateway: ["/api/model/v1/chat/completions", "team"],
    });
  });

  it("keeps every function's maxDuration within the Hobby limit", () => {
    const configs = vcConfigs();
    expect(configs.length).toBeGreaterThan(1);
    const over = configs
      .filter((c) => typeof c.config.maxDuration === "number")
      .filter((c) => (c.config.maxDuration as number) > HOBBY_MAX_DURATION_S);
    expect(over.map((c) => c.path)).toEqual([]);
  });

  it("gives the routes that provision sandboxes the in-sandbox bundles, and the wake budget", () => {
    for (const route of PROVISIONING_ROUTES) {
      const func = realpathSync(join(output, "functions", `${route}.func`));
      const config = JSON.parse(readFileSync(join(func, ".vc-config.json"), "utf8"));
      const files = Object.keys(config.filePathMap ?? {});
      expect({ route, bundles: BUNDLES.filter((b) => files.includes(b)) }).toEqual({
        route,
        bundles: BUNDLES,
      });
      for (const b of BUNDLES) expect(existsSync(join(dir, config.filePathMap[b]))).toBe(true);
      expect({ route, maxDuration: config.maxDuration }).toEqual({
        route,
        maxDuration: HOBBY_MAX_DURATION_S,
      });
    }
  });
});
