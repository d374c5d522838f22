import type { Locator, Page } from "playwright-core";

/** What the dashboard browser walks share (tests/dashboard-live and dashboard-faults). */

export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };
/** A wake or a sleep locally takes seconds; leave room for a loaded machine. */
export const TRANSITION_MS = 30_000;
export const UI_MS = 10_000;
export const AWAKE = /^Awake · sleeps (in ~\d+ min|at the next heartbeat)$/;
export const ASLEEP = /^Asleep since \d\d:\d\d · wakes on the next message$/;

/** Everything that went wrong in a page: console errors, failed requests, 5xx answers. */
export function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (m) => {
    // Chromium logs every 4xx answer; the walk provokes two on purpose (a wrong secret, a
    // refused wake) and checks the page explains them. 5xx are caught below.
    if (m.type() === "error" && !/status of 4\d\d/.test(m.text()))
      problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => {
    // Requests in flight (the live stream above all) are cut when a page navigates or closes.
    if (r.failure()?.errorText === "net::ERR_ABORTED") return;
    problems.push(`request failed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`);
  });
  page.on("response", (r) => {
    // 5xx is a server fault; 404 a missing file (the favicon was one on every load).
    if (r.status() >= 500 || r.status() === 404)
      problems.push(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`);
  });
  return problems;
}

export async function textOf(locator: Locator, pattern: RegExp, timeout = UI_MS): Promise<string> {
  await locator.filter({ hasText: pattern }).first().waitFor({ timeout });
  return (await locator.first().textContent()) ?? "";
}

export async function signIn(page: Page, secret: string): Promise<void> {
  await page.getByLabel("Operator secret").fill(secret);
  await page.getByRole("button", { name: "Sign in" }).click();
}

export const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return el?.dataset.testid ?? el?.id ?? el?.tagName ?? "";
  });
