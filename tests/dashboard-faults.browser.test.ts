import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBrowser } from "./support/browser";
import { type ClawrunServer, startClawrun } from "./support/clawrun-server";
import {
  AWAKE,
  DESKTOP,
  focused,
  signIn,
  TRANSITION_MS,
  textOf,
  UI_MS,
} from "./support/dashboard-page";

/**
 * The dashboard when things go wrong, in Debian's Chromium against the production build: the
 * server gone (stale banner), a browser that keeps no cookie, a panel whose request fails, a
 * wake that fails again. Split from the walk (dashboard-live.browser.test.ts) to run beside it;
 * this file's server is woken through the operator API, as the walk leaves its agent awake.
 */

const SHOTS = join("test-results", "screenshots");

let browser: Browser;
let server: ClawrunServer;

beforeAll(async () => {
  browser = await connectBrowser();
  server = await startClawrun({ timings: { heartbeatIntervalMs: 1000 } });
  const woken = await fetch(`${server.url}/api/sandbox/start`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.secrets.admin}` },
  });
  expect(woken.status).toBeLessThan(300);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("the dashboard, faults", () => {
  it("shows a sticky stale banner while the server is gone and clears it, and errors, on return", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    try {
      await page.goto(`${server.url}/login`);
      await signIn(page, server.secrets.admin);
      await page.waitForURL(`${server.url}/`, { timeout: UI_MS });
      await textOf(page.getByTestId("live-note"), /^live · updated/);
      await textOf(page.getByTestId("top-line-text"), AWAKE, TRANSITION_MS);

      await server.halt();
      const banner = page.getByTestId("stale-banner");
      await textOf(banner, /^Cannot reach the ClawRun server\. What you see is stale since/);
      expect(await page.locator("main.dash.stale").count()).toBe(1);
      // Clocks stop while stale: the status age does not move.
      const age = await page.getByTestId("status-age").textContent();
      await page.getByTestId("action-snapshot").click();
      await textOf(page.getByTestId("action-error"), /Cannot reach the ClawRun server/);
      await page.waitForTimeout(2_100);
      expect(await page.getByTestId("status-age").textContent()).toBe(age);
      await page.screenshot({ path: join(SHOTS, "v2-stale-desktop-light.png"), fullPage: true });

      await server.resume();
      await banner.waitFor({ state: "detached", timeout: TRANSITION_MS });
      await textOf(page.getByTestId("live-note"), /^live · updated/);
      expect(await page.getByTestId("action-error").textContent()).toBe("");
      expect(await page.locator("main.dash.stale").count()).toBe(0);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("says so when the browser keeps no session cookie, instead of looping to sign-in", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    try {
      // As a browser that refuses the cookie (a Secure cookie over plain http was one): the
      // sign-in is accepted, but no cookie arrives. (route.fetch would store the real one.)
      await page.route("**/api/auth/login", (route) =>
        route.fulfill({
          status: 200,
          contentType: "application/json",
          body: JSON.stringify({ ok: true, expiresAt: Date.now() + 3_600_000 }),
        }),
      );
      await page.goto(`${server.url}/login`);
      await signIn(page, server.secrets.admin);
      await textOf(page.getByTestId("login-error"), /did not keep the session cookie/);
      expect(new URL(page.url()).pathname).toBe("/login");
      expect(await focused(page)).toBe("login-error");
    } finally {
      await context.close();
    }
  }, 60_000);

  it("a panel whose request fails shows its own error, never a page-wide one", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    try {
      await page.goto(`${server.url}/login`);
      await signIn(page, server.secrets.admin);
      await page.waitForURL(`${server.url}/`, { timeout: UI_MS });
      // The log refuses (as it did while a snapshot was taken); everything else answers.
      await page.route("**/api/sandbox/logs", (route) =>
        route.fulfill({
          status: 500,
          contentType: "application/json",
          body: JSON.stringify({ error: { code: "internal", message: "internal error" } }),
        }),
      );
      await page.reload();
      await textOf(page.getByTestId("logs-error"), /^Could not load the log: Internal error$/);
      await textOf(page.getByTestId("top-line-text"), AWAKE, TRANSITION_MS);
      await page.getByTestId("snapshots-table").waitFor({ timeout: UI_MS });
      expect(await page.getByTestId("stale-banner").count()).toBe(0);
      expect(await page.getByText("Could not refresh").count()).toBe(0);
    } finally {
      await context.close();
    }
  }, 60_000);
});

describe("a wake that fails again", () => {
  // Its own server: an agent whose daemon never listens, and a short health budget.
  let failing: ClawrunServer;
  beforeAll(async () => {
    failing = await startClawrun({
      config: { agent: { type: "command", command: "sleep", args: ["600"] } },
      timings: { healthBudgetMs: 1_500 },
    });
  });
  afterAll(async () => {
    await failing?.stop();
  });

  it("says so beside the button, and the top line offers Wake", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    try {
      await page.goto(`${failing.url}/login`);
      await signIn(page, failing.secrets.admin);
      await page.waitForURL(`${failing.url}/`, { timeout: UI_MS });
      await page.getByTestId("top-line-fix").click();
      await textOf(page.getByTestId("top-line-text"), /^Failed: Start failed: /, TRANSITION_MS);
      expect(await page.getByTestId("top-line-fix").textContent()).toBe("Wake");
      await textOf(page.getByTestId("action-error"), /^Start failed: Start failed: /);
      // Pressing Wake in the failed state: it tries, fails again, and says so.
      const before = await page.getByTestId("transition-trail").textContent();
      await page.getByTestId("top-line-fix").click();
      await page.waitForFunction(
        (b) => document.querySelector('[data-testid="transition-trail"]')?.textContent !== b,
        before,
        { timeout: TRANSITION_MS },
      );
      await textOf(page.getByTestId("action-error"), /^Wake failed: Start failed: /, TRANSITION_MS);
      await textOf(page.getByTestId("transition-trail"), /failed .*→ creating .*→ failed/);
    } finally {
      await context.close();
    }
  }, 90_000);
});
