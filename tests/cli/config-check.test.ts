import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { EnvError } from "../../src/config/env";
import { createAppContext } from "../../src/server/compose/context";
import { clawrun } from "../support/cli";

/**
 * `clawrun config check` says exactly what start-up (scripts/preflight.ts, run by
 * `npm run dev` / `npm start`) says about the same clawrun.json and environment. A case's runs
 * (the CLI, its --json, the start-up) only read the deployment, so they run side by side.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function deployment(config: unknown | null): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), "clawrun-config-check-"));
  dirs.push(dir);
  const path = join(dir, "clawrun.json");
  if (config !== null) writeFileSync(path, JSON.stringify(config));
  return { CLAWRUN_CONFIG: path, CLAWRUN_STATE_DIR: dir };
}

/** The problem lines start-up prints (indented under "ClawRun cannot start:"). */
function problems(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((l) => l.startsWith("  "))
    .map((l) => l.trim());
}

function preflight(env: Record<string, string>): Promise<{ status: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "scripts/preflight.ts"],
      {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          ...env,
        } as unknown as NodeJS.ProcessEnv,
      },
      (err, _stdout, stderr) => {
        const status = err ? (typeof err.code === "number" ? err.code : -1) : 0;
        resolve({ status, stderr });
      },
    );
  });
}

describe("clawrun config check", () => {
  it.each([
    [
      "a wrong clawrun.json",
      deployment({ sandbox: { activeDuration: "5m", provider: "aws" }, extra: 1 }),
      'sandbox.activeDuration: expected a positive integer, got "5m"',
    ],
    [
      "a bad entry under agents",
      deployment({ agents: { clawrun: {}, team: { sandbox: { activeDuration: -1 } } } }),
      "agents.team: sandbox.activeDuration: expected a positive integer, got -1",
    ],
    [
      "half a Redis credential pair",
      { ...deployment({}), UPSTASH_REDIS_REST_URL: "https://x.upstash.io" },
      "UPSTASH_REDIS_REST_URL is set but UPSTASH_REDIS_REST_TOKEN is not",
    ],
    [
      "Vercel without a store",
      { ...deployment({}), VERCEL: "1" },
      "no store is connected: on Vercel, attach Upstash Redis",
    ],
    [
      "Vercel with a store but without its secrets",
      {
        ...deployment({}),
        VERCEL: "1",
        KV_REST_API_URL: "https://x.upstash.io",
        KV_REST_API_TOKEN: "token",
      },
      "ClawRun on Vercel needs these environment variables",
    ],
  ])("%s: exit 1 with the start-up's own lines", async (_name, env, expected) => {
    const [check, j, start] = await Promise.all([
      clawrun(["config", "check"], env),
      clawrun(["config", "check", "--json"], env),
      preflight(env),
    ]);
    expect(start.status).toBe(1);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain(expected);
    expect(problems(check.stderr)).toEqual(problems(start.stderr));
    expect(check.stderr).not.toMatch(/\n\s+at /);

    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toEqual({ ok: false, problems: problems(start.stderr) });
  });

  it("the vercel provider with only VERCEL_TOKEN: exit 1 naming what the server names", async () => {
    const env = { ...deployment({ sandbox: { provider: "vercel" } }), VERCEL_TOKEN: "tok_123" };
    const [check, start] = await Promise.all([clawrun(["config", "check"], env), preflight(env)]);
    expect(check.code).toBe(1);
    expect(check.stdout).toBe("");
    const lines = problems(check.stderr);
    expect(lines).toEqual([
      "environment: VERCEL_TEAM_ID is not set (set together with VERCEL_TOKEN (all three or none)) (the vercel provider needs it)",
      "environment: VERCEL_PROJECT_ID is not set (set together with VERCEL_TOKEN (all three or none)) (the vercel provider needs it)",
    ]);
    expect(problems(start.stderr)).toEqual(lines);
    // The server, built from the same file and environment, refuses with the same lines.
    const server = await createAppContext({
      logger: pino({ level: "silent" }),
      source: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    }).then(
      (ctx) => ctx.close().then(() => null),
      (err: unknown) => err,
    );
    expect(server).toBeInstanceOf(EnvError);
    expect((server as EnvError).problems).toEqual(lines);
  });

  it("a valid clawrun.json: exit 0, and nothing written (no secrets generated)", async () => {
    const env = deployment({ sandbox: { activeDuration: 300 } });
    const [r, j] = await Promise.all([
      clawrun(["config", "check"], env),
      clawrun(["config", "check", "--json"], env),
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`ok: ${env.CLAWRUN_CONFIG} and the environment are valid\n`);
    expect(existsSync(join(env.CLAWRUN_STATE_DIR as string, "secrets.json"))).toBe(false);
    expect(JSON.parse(j.stdout)).toEqual({ ok: true, config: env.CLAWRUN_CONFIG });
  });

  it("no clawrun.json: the defaults apply", async () => {
    const env = deployment(null);
    const r = await clawrun(["config", "check"], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`ok: no clawrun.json at ${env.CLAWRUN_CONFIG}; the defaults apply`);
  });
});
