import { describe, expect, it } from "vitest";
import { problemsOf } from "../../tests/support/problems-of";
import { EnvError, readEnv } from "./env";

/** Every way a store's credentials reach a deployment (docs/deploy.md, "The store"). */

const VERCEL = { VERCEL: "1", VERCEL_PROJECT_PRODUCTION_URL: "claw.vercel.app" };

const problems = (env: Record<string, string>) =>
  problemsOf(() => readEnv(env, "/srv/app"), EnvError);

describe("store from the environment", () => {
  it("takes Upstash's own names", () => {
    expect(
      readEnv({ UPSTASH_REDIS_REST_URL: "https://a.upstash.io", UPSTASH_REDIS_REST_TOKEN: "ta" })
        .store,
    ).toEqual({
      kind: "upstash",
      url: "https://a.upstash.io",
      token: "ta",
      source: "UPSTASH_REDIS_REST",
    });
  });

  it("takes the Vercel Marketplace's names, never the read-only token", () => {
    const marketplace = {
      KV_REST_API_URL: "https://kv.upstash.io",
      KV_REST_API_TOKEN: "write",
      KV_REST_API_READ_ONLY_TOKEN: "read-only",
      KV_URL: "rediss://default:write@kv.upstash.io:6379",
      REDIS_URL: "rediss://default:write@kv.upstash.io:6379",
    };
    expect(readEnv({ ...VERCEL, ...marketplace }).store).toEqual({
      kind: "upstash",
      url: "https://kv.upstash.io",
      token: "write",
      source: "KV_REST_API",
    });
  });

  it("refuses the read-only token alone, and says why", () => {
    expect(
      problems({ KV_REST_API_URL: "https://kv.upstash.io", KV_REST_API_READ_ONLY_TOKEN: "ro" }),
    ).toEqual([
      "environment: KV_REST_API_URL is set but KV_REST_API_TOKEN is not (they are a pair); the read-only token cannot be used: ClawRun writes to the store",
    ]);
  });

  it("takes the names under the prefix chosen when connecting the store", () => {
    const env = readEnv({
      ...VERCEL,
      clawstore_KV_REST_API_URL: "https://p.upstash.io",
      clawstore_KV_REST_API_TOKEN: "pw",
      clawstore_KV_REST_API_READ_ONLY_TOKEN: "pr",
      clawstore_KV_URL: "rediss://default:pw@p.upstash.io:6379",
      clawstore_REDIS_URL: "rediss://default:pw@p.upstash.io:6379",
    });
    expect(env.store).toEqual({
      kind: "upstash",
      url: "https://p.upstash.io",
      token: "pw",
      source: "clawstore_KV_REST_API",
    });
  });

  it("asks which store when several prefixes are connected, and obeys CLAWRUN_KV_PREFIX", () => {
    const two = {
      A_KV_REST_API_URL: "https://a.upstash.io",
      A_KV_REST_API_TOKEN: "ta",
      B_KV_REST_API_URL: "https://b.upstash.io",
      B_KV_REST_API_TOKEN: "tb",
    };
    expect(problems(two)).toEqual([
      "environment: several connected stores (A_KV_REST_API_URL, B_KV_REST_API_URL): set CLAWRUN_KV_PREFIX to the prefix ClawRun should use",
    ]);
    expect(readEnv({ ...two, CLAWRUN_KV_PREFIX: "B" }).store).toMatchObject({
      url: "https://b.upstash.io",
      token: "tb",
    });
    expect(problems({ ...two, CLAWRUN_KV_PREFIX: "C" })).toEqual([
      'environment: CLAWRUN_KV_PREFIX is "C" but C_KV_REST_API_URL and C_KV_REST_API_TOKEN are not set',
    ]);
  });

  it("prefers Upstash's names over the Marketplace's, REST over TCP", () => {
    expect(
      readEnv({
        UPSTASH_REDIS_REST_URL: "https://u.upstash.io",
        UPSTASH_REDIS_REST_TOKEN: "tu",
        KV_REST_API_URL: "https://kv.upstash.io",
        KV_REST_API_TOKEN: "tk",
        REDIS_URL: "redis://127.0.0.1:7000",
      }).store,
    ).toMatchObject({ source: "UPSTASH_REDIS_REST" });
  });

  it("takes a plain REDIS_URL", () => {
    expect(readEnv({ REDIS_URL: "redis://127.0.0.1:7000" }).store).toEqual({
      kind: "redis-tcp",
      url: "redis://127.0.0.1:7000",
    });
  });

  it("on Vercel, no store is a named error (never a silent SQLite file)", () => {
    expect(problems(VERCEL)).toEqual([
      "environment: no store is connected: on Vercel, attach Upstash Redis from the Vercel Marketplace (it sets KV_REST_API_URL and KV_REST_API_TOKEN), or set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, or REDIS_URL",
    ]);
    expect(readEnv({}).store).toEqual({ kind: "sqlite" });
  });
});

describe("public URL and scheduler on Vercel", () => {
  const store = { KV_REST_API_URL: "https://kv.upstash.io", KV_REST_API_TOKEN: "t" };

  it("uses the production domain, never the per-deployment VERCEL_URL", () => {
    const env = readEnv({ ...VERCEL, ...store, VERCEL_URL: "claw-abc123.vercel.app" });
    expect(env.publicUrl).toBe("https://claw.vercel.app");
    expect(readEnv({ VERCEL: "1", ...store, VERCEL_URL: "claw-abc.vercel.app" }).publicUrl).toBe(
      null,
    );
    expect(
      readEnv({ ...VERCEL, ...store, CLAWRUN_PUBLIC_URL: "https://agent.example.com/" }).publicUrl,
    ).toBe("https://agent.example.com");
  });

  it("reads the Deployment Protection bypass", () => {
    expect(readEnv({ ...VERCEL, ...store }).protectionBypass).toBeNull();
    expect(
      readEnv({ ...VERCEL, ...store, VERCEL_AUTOMATION_BYPASS_SECRET: "bypass-123" })
        .protectionBypass,
    ).toBe("bypass-123");
  });

  it("configures QStash only with both signing keys", () => {
    expect(readEnv({ ...VERCEL, ...store }).scheduler).toBeNull();
    expect(
      readEnv({
        ...VERCEL,
        ...store,
        QSTASH_TOKEN: "q",
        QSTASH_URL: "https://qstash.example/",
        QSTASH_CURRENT_SIGNING_KEY: "sig_cur",
        QSTASH_NEXT_SIGNING_KEY: "sig_next",
      }).scheduler,
    ).toEqual({
      kind: "qstash",
      token: "q",
      baseUrl: "https://qstash.example",
      currentSigningKey: "sig_cur",
      nextSigningKey: "sig_next",
    });
    expect(problems({ QSTASH_TOKEN: "q", QSTASH_CURRENT_SIGNING_KEY: "c" })).toEqual([
      "environment: QSTASH_TOKEN is set but QSTASH_NEXT_SIGNING_KEY is not (scheduled wakes are verified with the signing keys)",
    ]);
  });
});
