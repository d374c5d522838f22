import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBrowser } from "./support/browser";
import { type ClawrunServer, startClawrun } from "./support/clawrun-server";

/**
 * The dashboard under its security headers (issue 22 #8), in Debian's Chromium against the
 * production build: every page view gets a Content-Security-Policy with a fresh nonce that
 * Next.js puts on its own scripts, the dashboard still signs in, loads its data and signs
 * out, the browser reports no CSP violation, and no other site can frame it.
 */

const UI_MS = 15_000;
let browser: Browser;
let server: ClawrunServer;

beforeAll(async () => {
  browser = await connectBrowser();
  server = await startClawrun();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Collects every CSP violation the page reports (DOM event and console), from the first byte. */
async function watchViolations(page: Page): Promise<string[]> {
  const seen: string[] = [];
  await page.exposeFunction("__reportCsp", (line: string) => seen.push(line));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      const report = (window as unknown as { __reportCsp(l: string): void }).__reportCsp;
      report(
        `${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`,
      );
    });
  });
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) seen.push(m.text());
  });
  return seen;
}

function nonceOf(csp: string): string {
  return /'nonce-([^']+)'/.exec(csp)?.[1] ?? "";
}

describe("security headers", () => {
  it("every page view gets its own nonce, on every script Next.js renders", async () => {
    const views = [];
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${server.url}/login`);
      expect(res.status).toBe(200);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).not.toContain("unsafe-eval"); // production build
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      const nonce = nonceOf(csp);
      expect(nonce.length).toBeGreaterThan(16);
      const html = await res.text();
      const scripts = html.match(/<script\b[^>]*>/g) ?? [];
      expect(scripts.length).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
      views.push(nonce);
    }
    expect(views[0]).not.toBe(views[1]);
    // API answers carry the static headers too (no nonce needed: they render no HTML).
    const api = await fetch(`${server.url}/api/health?live=1`);
    expect(api.headers.get("x-content-type-options")).toBe("nosniff");
    expect(api.headers.get("x-frame-options")).toBe("DENY");
  });

  it("the dashboard signs in, loads and signs out under the policy without a violation", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const violations = await watchViolations(page);
    try {
      await page.goto(`${server.url}/login`);
      await page.getByLabel("Operator secret").fill(server.secrets.admin);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${server.url}/`, { timeout: UI_MS });
      // Rendered by the client from the operator API and its event stream: scripts ran.
      await page
        .getByTestId("status")
        .filter({ hasText: /^uninitialized$/ })
        .waitFor({ timeout: UI_MS });
      await page.getByTestId("config-table").waitFor({ timeout: UI_MS });
      await page.getByTestId("sign-out").click();
      await page.waitForURL(`${server.url}/login`, { timeout: UI_MS });
      expect(violations).toEqual([]);

      // The watch works: markup injected as by an XSS (an inline handler, no nonce) is
      // blocked, and reported.
      await page.evaluate(() =>
        document.body.insertAdjacentHTML(
          "beforeend",
          '<img src="/no-such-image.png" onerror="window.__injected = true">',
        ),
      );
      await expect.poll(() => violations.some((v) => v.includes("script-src"))).toBe(true);
      expect(await page.evaluate(() => "__injected" in window)).toBe(false);
    } finally {
      await context.close();
    }
  }, 60_000);

  it("another site cannot frame the dashboard", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.setContent(`<iframe src="${server.url}/login" width="600" height="400"></iframe>`);
      await page.waitForTimeout(2_000);
      const framed = page.frames().filter((f) => f !== page.mainFrame());
      expect(framed).toHaveLength(1);
      const shown = await (framed[0] as NonNullable<(typeof framed)[0]>)
        .evaluate(() => document.body?.textContent ?? "")
        .catch(() => "");
      expect(shown).not.toContain("Operator secret");
    } finally {
      await context.close();
    }
  }, 30_000);
});
