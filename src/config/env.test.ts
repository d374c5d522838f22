import { describe, expect, it } from "vitest";
import { problemsOf } from "../../tests/support/problems-of";
import { EnvError, readEnv } from "./env";

const problems = (env: Record<string, string>) =>
  problemsOf(() => readEnv(env, "/srv/app"), EnvError);

describe("readEnv", () => {
  it("defaults to sqlite, .clawrun and a loopback public URL on one machine", () => {
    const env = readEnv({}, "/srv/app");
    expect(env.store).toEqual({ kind: "sqlite" });
    expect(env.stateDir).toBe("/srv/app/.clawrun");
    expect(env.configPath).toBe("/srv/app/clawrun.json");
    expect(env.publicUrl).toBe("http://127.0.0.1:3000");
    expect(env.onVercel).toBe(false);
    expect(env.localTick).toBe(true);
    expect(env.givenSecrets).toEqual({});
  });

  it("selects Upstash from either variable pair, and plain Redis from REDIS_URL", () => {
    expect(
      readEnv({ UPSTASH_REDIS_REST_URL: "https://x.upstash.io", UPSTASH_REDIS_REST_TOKEN: "t" })
        .store,
    ).toEqual({
      kind: "upstash",
      url: "https://x.upstash.io",
      token: "t",
      source: "UPSTASH_REDIS_REST",
    });
    expect(
      readEnv({ KV_REST_API_URL: "https://kv.example", KV_REST_API_TOKEN: "k" }).store,
    ).toMatchObject({
      kind: "upstash",
      source: "KV_REST_API",
    });
    expect(readEnv({ REDIS_URL: "redis://127.0.0.1:7000" }).store).toEqual({
      kind: "redis-tcp",
      url: "redis://127.0.0.1:7000",
    });
  });

  it("rejects half a credential pair, naming both variables", () => {
    expect(problems({ UPSTASH_REDIS_REST_URL: "https://x.upstash.io" })).toEqual([
      "environment: UPSTASH_REDIS_REST_URL is set but UPSTASH_REDIS_REST_TOKEN is not (they are a pair)",
    ]);
    expect(problems({ KV_REST_API_TOKEN: "k" })).toEqual([
      "environment: KV_REST_API_TOKEN is set but KV_REST_API_URL is not (they are a pair)",
    ]);
  });

  it("rejects malformed values with the variable name", () => {
    expect(problems({ REDIS_URL: "localhost:6379" })).toEqual([
      "environment: REDIS_URL: expected a redis:// or rediss:// URL",
    ]);
    expect(problems({ ADMIN_SECRET: "short" })).toEqual([
      "environment: ADMIN_SECRET: expected at least 16 characters",
    ]);
    expect(problems({ CLAWRUN_PUBLIC_URL: "example.com" })).toEqual([
      "environment: CLAWRUN_PUBLIC_URL: expected an http(s) URL",
    ]);
  });

  it("takes secrets from the environment", () => {
    const env = readEnv({ ADMIN_SECRET: "a".repeat(20), CLAWRUN_SECRET: "b".repeat(32) });
    expect(env.givenSecrets).toEqual({
      ADMIN_SECRET: "a".repeat(20),
      CLAWRUN_SECRET: "b".repeat(32),
    });
  });

  it("on Vercel derives the public URL and turns the local tick off", () => {
    const env = readEnv({
      VERCEL: "1",
      VERCEL_PROJECT_PRODUCTION_URL: "claw.vercel.app",
      REDIS_URL: "redis://127.0.0.1:1",
    });
    expect(env.onVercel).toBe(true);
    expect(env.publicUrl).toBe("https://claw.vercel.app");
    expect(env.localTick).toBe(false);
  });

  it("parses test timing overrides strictly", () => {
    expect(readEnv({ CLAWRUN_TIMINGS: '{"heartbeatIntervalMs":500}' }).timingOverrides).toEqual({
      heartbeatIntervalMs: 500,
    });
    expect(problems({ CLAWRUN_TIMINGS: '{"heartbeatIntervalMillis":500}' })[0]).toMatch(
      /CLAWRUN_TIMINGS: unknown key "heartbeatIntervalMillis"/,
    );
  });

  it("never hands ClawRun's own secrets to agent env references", () => {
    const env = readEnv({ CLAWRUN_SECRET: "s".repeat(32), OPENAI_API_KEY: "sk-1" });
    expect(env.passthrough("OPENAI_API_KEY")).toBe("sk-1");
    expect(env.passthrough("CLAWRUN_SECRET")).toBeUndefined();
  });
});
