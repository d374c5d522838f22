import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBrowser } from "./support/browser";
import { type ClawrunServer, startClawrun } from "./support/clawrun-server";
import { lowContrastText } from "./support/contrast";
import {
  ASLEEP,
  AWAKE,
  DESKTOP,
  focused,
  PHONE,
  signIn,
  TRANSITION_MS,
  textOf,
  UI_MS,
  watch,
} from "./support/dashboard-page";
import { sendMessage } from "./support/messages";
import { VariantPages } from "./support/variant-pages";

/**
 * The dashboard in Debian's Chromium against the production build and the local provider: the
 * top line in every state, live transitions without reload, the cost card, the getting-started
 * test message, event rows, what a restart keeps, focus after sign-in failures and dialogs,
 * with no console error, failed request or 5xx during the walk. Screenshots at 1440×900 and
 * 390×844, light and dark, land in test-results/screenshots. The faults (stale banner, panel
 * errors, a wake that fails again) are in dashboard-faults.browser.test.ts, so the two files
 * run side by side.
 */

const SHOTS = join("test-results", "screenshots");

let browser: Browser;
let server: ClawrunServer;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await connectBrowser();
  server = await startClawrun({ timings: { heartbeatIntervalMs: 1000 } });
});

afterAll(async () => {
  await variants?.close();
  await browser?.close();
  await server?.stop();
});

/** Opened after sign-in, kept for the whole walk (tests/support/variant-pages.ts). */
let variants: VariantPages | null = null;

/** The same state at both widths, light and dark, signed in with the same cookie. */
async function shots(context: BrowserContext, name: string, topLine: RegExp): Promise<void> {
  variants ??= await VariantPages.open(browser, await context.storageState(), {
    desktop: { viewport: DESKTOP },
    phone: { viewport: PHONE, isMobile: true, hasTouch: true },
  });
  await variants.each(
    `${server.url}/`,
    async (p) => {
      await textOf(p.getByTestId("top-line-text"), topLine, TRANSITION_MS);
      await p.getByTestId("cost-total").waitFor({ timeout: UI_MS });
      await p.getByTestId("channel-card").first().waitFor({ timeout: UI_MS });
    },
    async ({ page: p, name: variant, problems }) => {
      await p.screenshot({ path: join(SHOTS, `v2-${name}-${variant}.png`), fullPage: true });
      const lowContrast = await lowContrastText(p);
      // Nothing sticks out sideways (a phone would scroll the whole page horizontally).
      const overflow = await p.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow, `${name} ${variant}: horizontal overflow`).toBe(0);
      expect(problems, `${name} ${variant}`).toEqual([]);
      expect(lowContrast, `${name} ${variant}`).toEqual([]);
    },
  );
}

describe("the dashboard, live", () => {
  it("walks the agent through every state, live, without errors", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const problems = watch(page);
    try {
      // A wrong secret: the reason gets the focus (keyboard and screen-reader users land on it).
      await page.goto(`${server.url}/login`);
      await signIn(page, "not-the-secret");
      await textOf(page.getByTestId("login-error"), /attempts? left/);
      expect(await focused(page)).toBe("login-error");
      await signIn(page, server.secrets.admin);
      await page.waitForURL(`${server.url}/`, { timeout: UI_MS });

      // First run: the top line says so and offers the one button; cost is zero locally.
      await textOf(page.getByTestId("top-line-text"), /^Never started/);
      expect(await page.getByTestId("top-line-fix").textContent()).toBe("Start");
      await textOf(page.getByTestId("cost-total"), /^\$0\.00$/);
      expect(await page.getByTestId("webhook-url").textContent()).toBe(
        `${server.url}/api/webhooks/generic`,
      );
      await page.locator('[data-testid="channel-card"][data-channel="generic"]').waitFor();
      await textOf(page.getByTestId("live-note"), /^live · updated/);
      await shots(context, "first-run", /^Never started/);

      // The getting-started test message wakes the agent (queued), then gets a reply.
      await page.getByTestId("test-message").click();
      await textOf(page.getByTestId("test-message-answer"), /^Queued as test-/);
      await textOf(page.getByTestId("top-line-text"), AWAKE, TRANSITION_MS);
      // The card waits for its own message's reply (read from the delivery record).
      await textOf(
        page.getByTestId("test-message-answer"),
        /^Reply: echo: Hello from the ClawRun dashboard/,
        TRANSITION_MS,
      );
      await page.getByTestId("countdown").waitFor({ timeout: UI_MS });
      // Pushed without reload, every step of the wake, even those shorter than a poll.
      await textOf(
        page.getByTestId("transition-trail"),
        /uninitialized .*→ creating .*→ starting .*→ running \d\d:\d\d:\d\d$/,
      );
      await page.getByTestId("test-message").click();
      await textOf(page.getByTestId("test-message-answer"), /^Reply: /, TRANSITION_MS);

      // One row per transition, expandable into its phases; the filter hides the rest.
      const woke = page.locator('[data-testid="event"][data-type="status.running"]').first();
      await textOf(woke.getByTestId("event-summary"), /^Woke in [\d.]+ m?s for /);
      await woke.locator("summary").click();
      await textOf(woke.getByTestId("event-timings"), /create .*healthy/);
      await page.getByTestId("event-filter").selectOption("problems");
      expect(await page.locator('[data-testid="event"][data-type="status.running"]').count()).toBe(
        0,
      );
      await page.getByTestId("event-filter").selectOption("all");
      await shots(context, "awake", AWAKE);

      // "Start fresh" says exactly what is kept; Escape returns the focus to the button.
      await page.getByTestId("action-fresh").focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByTestId("confirm-dialog");
      await dialog.waitFor({ state: "visible", timeout: UI_MS });
      await textOf(dialog.getByTestId("kept-note"), /^Nothing is deleted now/);
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "hidden", timeout: UI_MS });
      await page.waitForFunction(
        () => (document.activeElement as HTMLElement | null)?.dataset.testid === "action-fresh",
      );

      // Stop: the log panel keeps the last lines through the snapshot (no 5xx, no error).
      await page.getByTestId("action-stop").click();
      await dialog.waitFor({ state: "visible", timeout: UI_MS });
      await page.getByTestId("confirm-ok").click();
      await textOf(page.getByTestId("top-line-text"), ASLEEP, TRANSITION_MS);
      await textOf(page.getByTestId("logs-note"), /showing the last sandbox's log/);
      expect(await page.getByTestId("logs-error").count()).toBe(0);
      await shots(context, "asleep", ASLEEP);

      // Its snapshot goes (another operator): Wake is refused in words, a message fails the
      // wake, and the top line offers the one button that fixes it.
      const snapshots = (await (
        await fetch(`${server.url}/api/sandbox/snapshots`, {
          headers: { authorization: `Bearer ${server.secrets.admin}` },
        })
      ).json()) as { snapshots: { id: string }[] };
      for (const s of snapshots.snapshots)
        await fetch(`${server.url}/api/sandbox/snapshots/${s.id}`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${server.secrets.admin}` },
        });
      await page.getByTestId("snapshot-row").first().waitFor({ state: "detached", timeout: UI_MS });
      await page.getByTestId("action-start").click();
      await textOf(page.getByTestId("action-error"), /^Wake failed: .*no longer exists/);
      expect((await sendMessage(server, { id: "m-1", conversation: "c", text: "hi" })).status).toBe(
        202,
      );
      // Issue 22 item 11: the missing snapshot is named, nothing retries it, and the top line
      // and the Agent card both offer Start fresh as the one action.
      await textOf(page.getByTestId("top-line-text"), /^Failed — snapshot missing$/, TRANSITION_MS);
      expect(await page.getByTestId("top-line-fix").textContent()).toBe("Start fresh");
      expect(await page.getByTestId("action-start").textContent()).toBe("Start fresh");
      await shots(context, "failed", /^Failed — snapshot missing$/);
      await page.getByTestId("top-line-fix").click();
      await dialog.waitFor({ state: "visible", timeout: UI_MS });
      await page.getByTestId("confirm-ok").click();
      await textOf(page.getByTestId("top-line-text"), AWAKE, TRANSITION_MS);
      await textOf(page.getByTestId("cost-awake"), /^awake \d+ s of /);

      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 240_000);
});
