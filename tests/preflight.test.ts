import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** `npm run dev` and `npm start` run scripts/preflight.ts before Next starts. */
function preflight(env: Record<string, string>) {
  return spawnSync(process.execPath, ["--import", "tsx", "scripts/preflight.ts"], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as unknown as NodeJS.ProcessEnv,
    encoding: "utf8",
  });
}

describe("preflight (the first command's set-up)", () => {
  it("exits non-zero with one readable line per problem, no stack trace", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawrun-preflight-"));
    const config = join(dir, "clawrun.json");
    writeFileSync(
      config,
      JSON.stringify({ sandbox: { activeDuration: "5m", provider: "aws" }, extra: 1 }),
    );
    const run = preflight({ CLAWRUN_CONFIG: config, CLAWRUN_STATE_DIR: dir });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('sandbox.activeDuration: expected a positive integer, got "5m"');
    expect(run.stderr).toContain('sandbox.provider: expected "local" or "vercel", got "aws"');
    expect(run.stderr).toContain('unknown key "extra"');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("on first run generates the secrets, prints the operator secret once and where it is kept", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawrun-preflight-"));
    const env = { CLAWRUN_CONFIG: join(dir, "none.json"), CLAWRUN_STATE_DIR: dir };
    const first = preflight(env);
    expect(first.status).toBe(0);
    const secrets = JSON.parse(readFileSync(join(dir, "secrets.json"), "utf8"));
    expect(first.stdout).toContain(
      `Operator sign-in secret (ADMIN_SECRET): ${secrets.ADMIN_SECRET}`,
    );
    expect(first.stdout).toContain(join(dir, "secrets.json"));
    expect(statSync(join(dir, "secrets.json")).mode & 0o777).toBe(0o600);
    const second = preflight(env);
    expect(second.status).toBe(0);
    expect(second.stdout).not.toContain(secrets.ADMIN_SECRET);
  });

  it("refuses half a Redis credential pair, naming both variables", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawrun-preflight-"));
    const run = preflight({
      CLAWRUN_STATE_DIR: dir,
      UPSTASH_REDIS_REST_URL: "https://x.upstash.io",
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      "UPSTASH_REDIS_REST_URL is set but UPSTASH_REDIS_REST_TOKEN is not",
    );
  });
});
