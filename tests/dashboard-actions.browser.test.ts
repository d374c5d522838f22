import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type {
  Browser,
  BrowserContext,
  BrowserContextOptions,
  Locator,
  Page,
} from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBrowser } from "./support/browser";
import { type ClawrunServer, startClawrun } from "./support/clawrun-server";
import { VariantPages } from "./support/variant-pages";

/**
 * The operator dashboard in Debian's Chromium against the production build and the local
 * provider: sign in, watch the agent start, snapshot, sleep, and sign out. Screenshots of the
 * main states land in test-results/screenshots for people (and reviewers) to look at.
 */

const SHOTS = join("test-results", "screenshots");
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
/** A start → running takes a second or two locally; leave room for slow CI machines. */
const TRANSITION_MS = 30_000;
const UI_MS = 10_000;

let browser: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await connectBrowser();
});

afterAll(async () => {
  await shown?.close();
  await browser?.close();
});

async function newPage(
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: DESKTOP, ...options });
  const page = await context.newPage();
  return { context, page };
}

/** Waits until the element's whole text matches. */
async function textOf(locator: Locator, pattern: RegExp, timeout = UI_MS): Promise<string> {
  await locator.filter({ hasText: pattern }).first().waitFor({ timeout });
  return (await locator.first().textContent()) ?? "";
}

async function signIn(page: Page, secret: string): Promise<void> {
  await page.getByLabel("Operator secret").fill(secret);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Opened after sign-in, kept for the walk (tests/support/variant-pages.ts). */
let shown: VariantPages | null = null;

/** Screenshots the same state in dark mode and at phone width, signed in with the same cookie. */
async function variants(context: BrowserContext, url: string, name: string, status: RegExp) {
  shown ??= await VariantPages.open(browser, await context.storageState(), {
    desktop: { viewport: DESKTOP },
    phone: { viewport: PHONE, isMobile: true, hasTouch: true },
  });
  await shown.each(
    url,
    async (p) => {
      await textOf(p.getByTestId("status"), status);
      await p.getByTestId("config-table").waitFor({ timeout: UI_MS });
    },
    async ({ page: p, name: variant }) => {
      // The desktop in light is the walk's own page, shot there.
      if (variant === "desktop-light") return;
      await p.screenshot({ path: join(SHOTS, `${name}-${variant}.png`), fullPage: true });
    },
  );
}

describe("the dashboard", () => {
  let server: ClawrunServer;

  beforeAll(async () => {
    server = await startClawrun({ timings: { heartbeatIntervalMs: 1000 } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("signs in, starts, snapshots, stops, deletes a snapshot and signs out", async () => {
    const { context, page } = await newPage();
    try {
      // Signed out: the dashboard sends you to sign in.
      await page.goto(`${server.url}/`);
      expect(new URL(page.url()).pathname).toBe("/login");
      await page.screenshot({ path: join(SHOTS, "signed-out.png"), fullPage: true });

      // A wrong secret is refused, in words.
      await signIn(page, "definitely-not-the-secret");
      const refusal = await textOf(page.getByRole("alert"), /attempts? left/);
      expect(refusal).toContain("That is not the operator secret");
      expect(new URL(page.url()).pathname).toBe("/login");

      // The right one opens the dashboard on a never-started agent.
      await signIn(page, server.secrets.admin);
      await page.waitForURL(`${server.url}/`, { timeout: UI_MS });
      await textOf(page.getByTestId("status"), /^uninitialized$/);
      await page.getByTestId("config-table").waitFor({ timeout: UI_MS });
      await page.getByTestId("snapshots-table").waitFor({ timeout: UI_MS });
      expect(await page.getByTestId("provider").textContent()).toBe("local");
      expect(await page.getByTestId("agent").textContent()).toBe("echo");
      expect(await page.getByTestId("action-stop").isDisabled()).toBe(true);
      expect(await page.getByTestId("action-snapshot").isDisabled()).toBe(true);
      await page.screenshot({ path: join(SHOTS, "uninitialized.png"), fullPage: true });

      // Start → running, with a daemon pid and a heartbeat age.
      await page.getByTestId("action-start").click();
      await textOf(page.getByTestId("status"), /^running$/, TRANSITION_MS);
      await textOf(page.getByTestId("status-age"), /^running for \d+ s$/);
      expect(await page.getByTestId("sandbox-id").textContent()).not.toBe("none");
      const pid = Number(await textOf(page.getByTestId("daemon-pid"), /^\d+$/, UI_MS));
      await textOf(page.getByTestId("heartbeat-age"), /^(just now|\d+ s ago)$/, UI_MS);
      await textOf(page.getByTestId("daemon-status"), /running/);
      // The wake's per-phase timings show up in the event timeline.
      const wake = page.locator('[data-testid="event"][data-type="status.running"]');
      await textOf(wake.getByTestId("event-summary"), /^Woke in [\d.]+ m?s for /);
      await wake.first().locator("summary").click();
      await textOf(wake.getByTestId("event-timings"), /create .*healthy/);
      expect(await page.getByTestId("action-stop").isEnabled()).toBe(true);

      // The daemon crashes (local sandboxes are real processes): the sidecar restarts it and
      // the restart shows in the counter and the history chart.
      await textOf(page.getByTestId("restart-summary"), /^no restarts in the last 24 h$/);
      process.kill(pid, "SIGKILL");
      await textOf(page.getByTestId("daemon-restarts"), /^1$/, TRANSITION_MS);
      await textOf(
        page.getByTestId("restart-summary"),
        /^1 restart in the last 24 h, last /,
        UI_MS,
      );
      expect(await page.locator('[data-testid="restart-chart"] circle').count()).toBe(1);
      await textOf(page.getByTestId("daemon-status"), /running/, TRANSITION_MS);
      const newPid = Number(await textOf(page.getByTestId("daemon-pid"), /^\d+$/, UI_MS));
      expect(newPid).not.toBe(pid);
      // Polling must not move things around: the top panels keep their boxes across polls.
      const boxes = () =>
        page.evaluate(() =>
          ["status", "runway", "daemon", "awake", "cron", "inbox"].map((id) => {
            const r = document
              .querySelector(`[data-testid="panel-${id}"]`)
              ?.getBoundingClientRect();
            return r ? [id, r.x, r.y, r.width, r.height].join(" ") : `${id} missing`;
          }),
        );
      const before = await boxes();
      await page.waitForTimeout(3_500); // at least one calm poll, several clock ticks
      expect(await boxes()).toEqual(before);
      await page.screenshot({ path: join(SHOTS, "running.png"), fullPage: true });
      await variants(context, `${server.url}/`, "running", /^running$/);

      // Snapshot now → it appears in the table, and the agent keeps running.
      const rows = page.getByTestId("snapshot-row");
      expect(await rows.count()).toBe(0);
      await page.getByTestId("action-snapshot").click();
      await rows.first().waitFor({ timeout: TRANSITION_MS });
      expect(await rows.count()).toBe(1);
      const manual = await rows.first().getAttribute("data-snapshot-id");
      expect(manual).toBeTruthy();
      expect(await page.getByTestId("status").textContent()).toBe("running");

      // Stop asks first; Escape (keyboard) cancels and nothing happens.
      const dialog = page.getByTestId("confirm-dialog");
      await page.getByTestId("action-stop").click();
      await dialog.waitFor({ state: "visible", timeout: UI_MS });
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Cancel");
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "hidden", timeout: UI_MS });
      await page.waitForTimeout(1_500); // a poll or two: an accidental stop would show by now
      expect(await page.getByTestId("status").textContent()).toBe("running");

      // Stop, confirmed → snapshotting → sleeping, with a second snapshot.
      await page.getByTestId("action-stop").click();
      await dialog.waitFor({ state: "visible", timeout: UI_MS });
      await page.screenshot({ path: join(SHOTS, "confirm-stop.png") });
      await page.getByTestId("confirm-ok").click();
      await textOf(page.getByTestId("status"), /^sleeping$/, TRANSITION_MS);
      await textOf(page.getByTestId("status-age"), /^sleeping since \d\d:\d\d$/);
      await page.waitForFunction(
        () => document.querySelectorAll('[data-testid="snapshot-row"]').length === 2,
        undefined,
        { timeout: UI_MS },
      );
      expect(await page.getByTestId("action-start").textContent()).toBe("Wake");
      expect(await page.getByTestId("sandbox-id").textContent()).toBe("none");
      await page.screenshot({ path: join(SHOTS, "sleeping.png"), fullPage: true });
      await variants(context, `${server.url}/`, "sleeping", /^sleeping$/);

      // Delete the manual snapshot, confirmed in the dialog.
      const row = page.locator(`[data-testid="snapshot-row"][data-snapshot-id="${manual}"]`);
      await row.getByTestId("snapshot-delete").click();
      await dialog.waitFor({ state: "visible", timeout: UI_MS });
      expect(await dialog.textContent()).toContain(String(manual));
      await page.getByTestId("confirm-ok").click();
      await row.waitFor({ state: "detached", timeout: UI_MS });
      expect(await rows.count()).toBe(1);
      expect(await page.getByTestId("action-error").textContent()).toBe("");

      // Wake from the snapshot that is left (the local provider can restore any of them).
      const kept = await rows.first().getAttribute("data-snapshot-id");
      await rows
        .first()
        .getByRole("button", { name: `Wake from snapshot ${kept}` })
        .click();
      await textOf(page.getByTestId("status"), /^running$/, TRANSITION_MS);
      await textOf(page.getByTestId("status-reason"), new RegExp(`restored from ${kept}`));

      // A refused action is explained in words: the snapshot goes away (another operator,
      // over the API) while the confirmation is open.
      await rows.first().getByTestId("snapshot-delete").click();
      await dialog.waitFor({ state: "visible", timeout: UI_MS });
      expect(await dialog.textContent()).toContain("latest files"); // it is the one restored
      const elsewhere = await fetch(`${server.url}/api/sandbox/snapshots/${kept}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${server.secrets.admin}` },
      });
      expect(elsewhere.status).toBe(200);
      await page.getByTestId("confirm-ok").click();
      const refused = await textOf(page.getByTestId("action-error"), /failed/);
      expect(refused).toBe(`Delete snapshot failed: Snapshot "${kept}" does not exist`);
      await rows.first().waitFor({ state: "detached", timeout: UI_MS });

      // Sign out → the page and the JSON API refuse this browser.
      await page.getByTestId("sign-out").click();
      await page.waitForURL(`${server.url}/login`, { timeout: UI_MS });
      await page.goto(`${server.url}/`);
      expect(new URL(page.url()).pathname).toBe("/login");
      const api = await context.request.get(`${server.url}/api/sandbox`);
      expect(api.status()).toBe(401);
      expect((await api.json()).error.message).toBe("sign in first");
    } finally {
      await context.close();
    }
  }, 120_000);
});

describe("sign-in rate limit", () => {
  // Its own server: locally every client shares one failure bucket.
  let server: ClawrunServer;

  beforeAll(async () => {
    server = await startClawrun();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("refuses every sign-in after 10 wrong secrets, saying why", async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${server.url}/login`);
      const alert = page.getByRole("alert");
      for (let attempt = 1; attempt <= 9; attempt++) {
        await signIn(page, `wrong-${attempt}`);
        const left = 10 - attempt;
        await textOf(alert, new RegExp(`\\b${left} attempts? left`));
      }
      await signIn(page, "wrong-10");
      const tooMany = await textOf(alert, /Too many failed sign-ins/);
      expect(tooMany).toMatch(/locked for 15 more minutes \(at \d\d:\d\d UTC\)/);
      await page.screenshot({ path: join(SHOTS, "rate-limited.png"), fullPage: true });

      // Locked out even with the right secret until the window passes.
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/api/auth/login"), { timeout: UI_MS }),
        signIn(page, server.secrets.admin),
      ]);
      expect(answer.status()).toBe(429);
      await textOf(alert, /Too many failed sign-ins from your address \(10\)/);
      expect(new URL(page.url()).pathname).toBe("/login");
      const api = await context.request.get(`${server.url}/api/sandbox`);
      expect(api.status()).toBe(401);
    } finally {
      await context.close();
    }
  }, 60_000);
});
