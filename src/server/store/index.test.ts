import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createStore, VERCEL_NEEDS_REDIS } from "./index";

/** Adapter selection; nothing here connects anywhere (stores connect on first use). */
describe("createStore", () => {
  const base = { instance: "clawrun", stateDir: "/nonexistent/state", onVercel: false };

  it("uses the sqlite file in the state dir when no Redis is configured", async () => {
    const dir = await mkdtemp(join(tmpdir(), "clawrun-index-"));
    try {
      const store = createStore({ kind: "sqlite" }, { ...base, stateDir: dir });
      expect(store.kind).toBe("sqlite");
      expect(store.description).toBe(`sqlite ${join(dir, "store.db")}`);
      await store.ping();
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses sqlite on Vercel with a message naming the variables to set", () => {
    expect(() => createStore({ kind: "sqlite" }, { ...base, onVercel: true })).toThrow(
      VERCEL_NEEDS_REDIS,
    );
    expect(VERCEL_NEEDS_REDIS).toBe(
      "ClawRun on Vercel needs Upstash Redis: set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (or KV_REST_API_URL and KV_REST_API_TOKEN from the Vercel Marketplace)",
    );
  });

  it("uses the redis adapter over REST for Upstash settings, on Vercel or not", async () => {
    for (const onVercel of [false, true]) {
      const store = createStore(
        {
          kind: "upstash",
          url: "https://db.upstash.io",
          token: "secret-token",
          source: "KV_REST_API",
        },
        { ...base, onVercel },
      );
      expect(store.kind).toBe("redis");
      expect(store.description).toBe("upstash https://db.upstash.io");
      await store.close();
    }
  });

  it("uses the redis adapter over TCP for REDIS_URL, without showing the password", async () => {
    const store = createStore(
      { kind: "redis-tcp", url: "redis://default:pw@127.0.0.1:1" },
      { ...base, onVercel: true },
    );
    expect(store.kind).toBe("redis");
    expect(store.description).toBe("redis redis://127.0.0.1:1");
    expect(store.description).not.toContain("pw");
    await store.close();
  });

  it("rejects an instance name that could collide with another instance's keys", () => {
    expect(() => createStore({ kind: "sqlite" }, { ...base, instance: "a:b" })).toThrow(
      /instance name/,
    );
  });
});
