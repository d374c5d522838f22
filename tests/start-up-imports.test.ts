import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * docs/architecture.md, "Start-up": cloud SDKs that only some deployments call load at their
 * first call, not with every server process (each Vercel cold start, each `next start`).
 * A package loaded from the composition root's imports shows in the CommonJS module cache.
 */
describe("what a server process loads when it starts", () => {
  it("loads neither the Vercel Sandbox SDK, nor QStash, nor ioredis until they are called; the store and schema packages it always needs, it does", () => {
    const fixture = join(process.cwd(), "tests", "fixtures", "packages-at-start.mts");
    const names = ["@vercel/sandbox", "@upstash/qstash", "ioredis", "better-sqlite3", "zod"];
    const out = execFileSync(process.execPath, ["--import", "tsx", fixture, ...names], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(JSON.parse(out.trim().split("\n").at(-1) ?? "{}")).toEqual({
      "@vercel/sandbox": false,
      "@upstash/qstash": false,
      ioredis: false,
      // The control: the detection sees what the composition root does import.
      "better-sqlite3": true,
      zod: true,
    });
  });
});
