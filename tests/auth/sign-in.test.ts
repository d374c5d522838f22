import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/server/app-context";
import { createAppContext } from "../../src/server/compose/context";
import { SIGN_IN_LIMIT, signIn } from "../../src/server/http/sign-in";

/**
 * Operator sign-in against the real context (real SQLite store): the session cookie's Secure
 * flag follows the request's scheme, a successful sign-in forgets earlier typos, and a
 * lock-out says until when.
 */

let ctx: AppContext;
let stateDir: string;
const admin = randomBytes(24).toString("hex");

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), "clawrun-signin-"));
  const configPath = join(stateDir, "clawrun.json");
  writeFileSync(configPath, "{}");
  ctx = await createAppContext({
    logger: pino({ level: "silent" }),
    source: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      // Production mode, as `npm start` on a LAN box runs: the cookie must still work over http.
      NODE_ENV: "production",
      CLAWRUN_STATE_DIR: stateDir,
      CLAWRUN_CONFIG: configPath,
      CLAWRUN_PUBLIC_URL: "http://192.168.1.20:3000",
      CLAWRUN_LOCAL_TICK: "0",
      CLAWRUN_SECRET: randomBytes(24).toString("hex"),
      ADMIN_SECRET: admin,
      CRON_SECRET: randomBytes(24).toString("hex"),
      CLAWRUN_WEBHOOK_SECRET: randomBytes(24).toString("hex"),
    },
  });
});

afterAll(async () => {
  await ctx?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

function attempt(secret: string, base = "http://192.168.1.20:3000", extra = {}): Promise<Response> {
  return signIn(
    new Request(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base, ...extra },
      body: JSON.stringify({ secret }),
    }),
    ctx,
  );
}

const cookieOf = (res: Response) => res.headers.get("set-cookie") ?? "";

describe("operator sign-in", () => {
  it("sets a cookie without Secure over plain http on a LAN host, even in production", async () => {
    const res = await attempt(admin);
    expect(res.status).toBe(200);
    expect(cookieOf(res)).toMatch(/^clawrun_session=[^;]+/);
    expect(cookieOf(res).toLowerCase()).not.toContain("secure");
  });

  it("marks the cookie Secure over https and behind a proxy that says https", async () => {
    const direct = await attempt(admin, "https://clawrun.example");
    expect(cookieOf(direct).toLowerCase()).toContain("secure");
    const proxied = await attempt(admin, "http://192.168.1.20:3000", {
      "x-forwarded-proto": "https",
    });
    expect(cookieOf(proxied).toLowerCase()).toContain("secure");
  });

  it("forgets earlier typos after a successful sign-in", async () => {
    for (let i = 1; i < SIGN_IN_LIMIT.failures; i++)
      expect((await attempt(`wrong-${i}`)).status).toBe(401);
    expect((await attempt(admin)).status).toBe(200);
    // Without the reset, this one typo would be the tenth and lock everyone out.
    const next = await attempt("one-more-typo");
    expect(next.status).toBe(401);
    expect((await next.json()).error.message).toContain(
      `${SIGN_IN_LIMIT.failures - 1} attempts left`,
    );
    expect((await attempt(admin)).status).toBe(200);
  });

  it("says how long a lock-out lasts, also to the right secret", async () => {
    const started = Date.now();
    let last = new Response();
    for (let i = 1; i <= SIGN_IN_LIMIT.failures; i++) last = await attempt(`bad-${i}`);
    expect(last.status).toBe(429);
    const message: string = (await last.json()).error.message;
    expect(message).toMatch(/locked for 15 more minutes \(at \d\d:\d\d UTC\)/);
    const refused = await attempt(admin);
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.message).toMatch(/locked for 1[45] more minutes/);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(
      Math.ceil((started + 15 * 60_000 - Date.now()) / 1000) + 1,
    );
  });
});
