import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBrowser } from "./support/browser";
import { type ClawrunServer, startClawrun } from "./support/clawrun-server";
import { type RedisServer, startRedisServer } from "./support/redis-server";
import { startUpstashRestProxy, type UpstashRestProxy } from "./support/upstash-rest-proxy";
import { startVercelSandboxEmulator } from "./support/vercel-sandbox-emulator";

/**
 * A fresh Vercel deployment (`VERCEL=1`, the production build under `next start`): Upstash
 * attached through the Marketplace's names (KV_REST_API_*, a REST front for a real Redis), but
 * ADMIN_SECRET, CRON_SECRET and the provider's credentials not set yet. The app refuses what
 * needs them by name, and the set-up screen lists each missing item with the variable to set;
 * once they are set, the checklist is green and the dashboard opens (docs/deploy.md).
 */

const SHOTS = join("test-results", "screenshots");
const UI_MS = 15_000;

let redis: RedisServer;
let upstash: UpstashRestProxy;
let browser: Browser;
const emulator = await startVercelSandboxEmulator();

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  redis = await startRedisServer();
  upstash = await startUpstashRestProxy(redis.url);
  browser = await connectBrowser();
});

afterAll(async () => {
  await browser?.close();
  await upstash?.stop();
  await redis?.stop();
  await emulator.close();
});

function vercelEnv(extra: Record<string, string>): Record<string, string> {
  return {
    VERCEL: "1",
    KV_REST_API_URL: upstash.url,
    KV_REST_API_TOKEN: upstash.token,
    KV_REST_API_READ_ONLY_TOKEN: "read-only-token-never-used",
    ...extra,
  };
}

type Item = {
  id: string;
  label: string;
  ok: boolean;
  need: string;
  fix: string | null;
  detail: string;
};

describe("a fresh deployment on Vercel", () => {
  let server: ClawrunServer;

  beforeAll(async () => {
    server = await startClawrun({
      // The secrets a deployer has not set yet (empty = unset).
      env: vercelEnv({ ADMIN_SECRET: "", CRON_SECRET: "" }),
    });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("refuses requests that need the missing secrets, naming them", async () => {
    const cron = await fetch(`${server.url}/api/cron`, {
      headers: { authorization: "Bearer anything-at-all-here" },
    });
    expect(cron.status).toBe(503);
    const message = (await cron.json()).error.message as string;
    expect(message).toContain("ADMIN_SECRET, CRON_SECRET");
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ secret: "x".repeat(20) }),
    });
    expect(login.status).toBe(503);
    expect((await login.json()).error.message).toContain("ADMIN_SECRET");
  });

  it("reports each missing item in /api/health with the variable to set", async () => {
    const res = await fetch(`${server.url}/api/health`);
    expect(res.status).toBe(503);
    const setup = (await res.json()).setup as Item[];
    const byId = new Map(setup.map((i) => [i.id, i]));
    expect(byId.get("store")).toMatchObject({ ok: true });
    expect(byId.get("store")?.detail).toContain("upstash");
    expect(byId.get("public-url")).toMatchObject({ ok: true });
    expect(byId.get("secret:ADMIN_SECRET")).toMatchObject({ ok: false });
    expect(byId.get("secret:ADMIN_SECRET")?.fix).toMatch(/^set ADMIN_SECRET to/);
    expect(byId.get("secret:CRON_SECRET")).toMatchObject({ ok: false });
    expect(byId.get("secret:CLAWRUN_SECRET")).toMatchObject({ ok: true });
    expect(byId.get("provider")).toMatchObject({ ok: false });
    expect(byId.get("provider")?.fix).toMatch(/VERCEL_TOKEN|VERCEL_OIDC_TOKEN/);
    // On Vercel, the free-plan estimate: one agent with the defaults fits.
    expect(byId.get("free-plan")).toMatchObject({ ok: true, need: "recommended" });
  });

  it("shows the set-up checklist instead of the sign-in form", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/login`);
      const list = page.getByTestId("setup-checklist");
      await list.getByTestId("setup-secret:ADMIN_SECRET").waitFor({ timeout: UI_MS });
      for (const id of ["secret:ADMIN_SECRET", "secret:CRON_SECRET", "provider"]) {
        const row = list.getByTestId(`setup-${id}`);
        expect(await row.getAttribute("data-ok")).toBe("false");
      }
      expect(await list.getByTestId("setup-secret:CRON_SECRET").textContent()).toContain(
        "set CRON_SECRET to at least 16 random characters",
      );
      expect(await list.getByTestId("setup-store").getAttribute("data-ok")).toBe("true");
      expect(await page.getByLabel("Operator secret").count()).toBe(0);
      await page.screenshot({ path: join(SHOTS, "setup-checklist.png"), fullPage: true });
      // The dashboard address shows the same list (nobody can sign in yet).
      await page.goto(`${server.url}/`);
      await page.getByTestId("setup-secret:ADMIN_SECRET").waitFor({ timeout: UI_MS });
    } finally {
      await context.close();
    }
  });
});

describe("the same deployment with every variable set", () => {
  let server: ClawrunServer;

  beforeAll(async () => {
    server = await startClawrun({ env: vercelEnv(emulator.env) });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("is all green and opens the dashboard after sign-in", async () => {
    const res = await fetch(`${server.url}/api/health`);
    const body = await res.json();
    expect((body.setup as Item[]).filter((i) => !i.ok)).toEqual([]);
    expect((body.setup as Item[]).find((i) => i.id === "free-plan")?.label).toMatch(/^1 agent /);
    expect(res.status).toBe(200);
    expect(body.checks.provider.detail).toMatch(/^vercel: ok/);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/login`);
      await page.getByLabel("Operator secret").fill(server.secrets.admin);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${server.url}/`, { timeout: UI_MS });
      await page.getByTestId("status").waitFor({ timeout: UI_MS });
      expect(await page.getByTestId("provider").textContent()).toBe("vercel");
      expect(await page.getByTestId("setup-checklist").count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
