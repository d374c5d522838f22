import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signatureHeaders } from "../src/protocol/signing";
import { connectBrowser } from "./support/browser";
import { type ClawrunServer, startClawrun } from "./support/clawrun-server";
import {
  DESKTOP,
  PHONE,
  signIn,
  TRANSITION_MS,
  textOf,
  UI_MS,
  watch,
} from "./support/dashboard-page";
import { operatorGet } from "./support/messages";
import { printOutputOnFailure } from "./support/output-on-failure";

/**
 * The fleet view (docs/several-agents.md) in Chromium against the production build: three
 * echo agents, `/` lists them live and sorts them, a webhook wakes one and its row says so
 * without a reload, and that agent's own page stops it while the others stay as they were.
 */

const SHOTS = join("test-results", "screenshots");
let browser: Browser;
let server: ClawrunServer;
printOutputOnFailure("the ClawRun server", () => server?.output());

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  [browser, server] = await Promise.all([
    connectBrowser(),
    startClawrun({
      config: { agents: { clawrun: {}, team: {}, ops: {} } },
      timings: { heartbeatIntervalMs: 500 },
    }),
  ]);
});

afterAll(async () => {
  await server?.stop();
  await browser?.close();
});

const rowNames = (page: Page) =>
  page
    .getByTestId("fleet-row")
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-agent")));
const statusOf = (page: Page, agent: string) =>
  page.locator(`[data-testid="fleet-row"][data-agent="${agent}"] [data-testid="fleet-status"]`);

async function wakeByWebhook(agent: string) {
  const raw = JSON.stringify({ id: `w-${agent}`, conversation: "c", text: "hello" });
  const res = await fetch(`${server.url}/api/webhooks/generic/${agent}`, {
    method: "POST",
    body: raw,
    headers: {
      "content-type": "application/json",
      ...signatureHeaders(server.secrets.webhook, raw),
    },
  });
  expect(res.status).toBe(202);
}

describe("the fleet view", () => {
  it("lists, sorts, follows a wake live, and stops one agent from its own page", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const problems = watch(page);
    const requests: string[] = [];
    page.on("request", (r) => requests.push(new URL(r.url()).pathname));
    try {
      await page.goto(`${server.url}/`);
      expect(new URL(page.url()).pathname).toBe("/login");
      await signIn(page, server.secrets.admin);
      await page.waitForURL(`${server.url}/`, { timeout: UI_MS });

      // Three rows in clawrun.json's order, the default one marked.
      await page.waitForFunction(
        () => document.querySelectorAll('[data-testid="fleet-row"]').length === 3,
        undefined,
        { timeout: UI_MS },
      );
      expect(await rowNames(page)).toEqual(["clawrun", "team", "ops"]);
      // The rows come with the HTML, before any script runs (the first paint has them).
      const html = await (await context.request.get(`${server.url}/`)).text();
      expect(html.match(/data-testid="fleet-row"/g)).toHaveLength(3);
      const first = page.locator('[data-testid="fleet-row"][data-agent="clawrun"]');
      expect(await first.textContent()).toContain("default");
      for (const agent of ["clawrun", "team", "ops"])
        expect(await statusOf(page, agent).textContent()).toBe("uninitialized");

      // Sorting by name: ascending, then descending, said by aria-sort on the header.
      const nameHeader = page.locator("th", { has: page.getByTestId("sort-name") });
      expect(await nameHeader.getAttribute("aria-sort")).toBeNull();
      await page.getByTestId("sort-name").click();
      expect(await rowNames(page)).toEqual(["clawrun", "ops", "team"]);
      expect(await nameHeader.getAttribute("aria-sort")).toBe("ascending");
      await page.getByTestId("sort-name").click();
      expect(await rowNames(page)).toEqual(["team", "ops", "clawrun"]);
      expect(await nameHeader.getAttribute("aria-sort")).toBe("descending");

      // A message to team wakes it; its row turns running on this same page (no reload).
      await page.evaluate(() => {
        (window as unknown as { sameDocument: boolean }).sameDocument = true;
      });
      await wakeByWebhook("team");
      await textOf(statusOf(page, "team"), /^running$/, TRANSITION_MS);
      expect(
        await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument),
      ).toBe(true);
      expect(await statusOf(page, "ops").textContent()).toBe("uninitialized");
      expect(await statusOf(page, "clawrun").textContent()).toBe("uninitialized");
      // After its first heartbeat the row counts down to its sleep (pushed at the next refresh).
      await textOf(
        page.locator('[data-testid="fleet-row"][data-agent="team"] [data-testid="fleet-sleeps"]'),
        /^sleeps in \d+ (s|min)$/,
        TRANSITION_MS,
      );
      expect(await rowNames(page)).toEqual(["team", "ops", "clawrun"]); // the sort holds
      await page.screenshot({ path: join(SHOTS, "fleet.png"), fullPage: true });
      await page.setViewportSize(PHONE);
      await page.screenshot({ path: join(SHOTS, "fleet-phone.png"), fullPage: true });
      await page.setViewportSize(DESKTOP);

      // Team's own page: its name, its state, every call under /api/agents/team.
      requests.length = 0;
      await page
        .locator('[data-testid="fleet-row"][data-agent="team"]')
        .getByTestId("fleet-name")
        .click();
      await page.waitForURL(`${server.url}/agents/team`, { timeout: UI_MS });
      expect(await page.getByTestId("agent-name").textContent()).toBe("team");
      expect(await page.title()).toBe("team · ClawRun");
      await textOf(page.getByTestId("status"), /^running$/);
      await page.getByTestId("config-table").waitFor({ timeout: UI_MS });
      await page.screenshot({ path: join(SHOTS, "fleet-agent-page.png") });
      const api = requests.filter((p) => p.startsWith("/api/"));
      expect(api).toContain("/api/agents/team/sandbox/stream");
      expect(api.filter((p) => !p.startsWith("/api/agents/team/"))).toEqual([]);

      // Stop, confirmed: team sleeps, the other two are untouched.
      await page.getByTestId("action-stop").click();
      await page.getByTestId("confirm-dialog").waitFor({ state: "visible", timeout: UI_MS });
      await page.getByTestId("confirm-ok").click();
      await textOf(page.getByTestId("status"), /^sleeping$/, TRANSITION_MS);
      const { agents } = await operatorGet<{ agents: { name: string; status: string }[] }>(
        server,
        "/api/agents",
      );
      expect(agents.map((a) => [a.name, a.status])).toEqual([
        ["clawrun", "uninitialized"],
        ["team", "sleeping"],
        ["ops", "uninitialized"],
      ]);

      // Back to the fleet, which shows the same.
      await page.getByTestId("back-to-fleet").click();
      await page.waitForURL(`${server.url}/`, { timeout: UI_MS });
      await textOf(statusOf(page, "team"), /^sleeping$/);

      // The fleet's cost card: a line per agent in file order, only team was ever awake; the
      // local provider publishes no prices, so the sandbox column says so.
      type Cost = { agents: { name: string; awakeMs: number; unpriced: boolean }[] };
      const cost = await operatorGet<Cost>(server, "/api/fleet/cost");
      expect(cost.agents.map((a) => [a.name, a.awakeMs > 0, a.unpriced])).toEqual([
        ["clawrun", false, true],
        ["team", true, true],
        ["ops", false, true],
      ]);
      await page.getByTestId("fleet-cost-table").waitFor({ timeout: UI_MS });
      expect(
        await page
          .getByTestId("fleet-cost-row")
          .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-agent"))),
      ).toEqual(["clawrun", "team", "ops"]);
      expect(
        await page.locator('[data-testid="fleet-cost-row"][data-agent="team"]').textContent(),
      ).toContain("not priced");
      expect(await page.getByTestId("fleet-cost-total").textContent()).toContain("$0.00");

      // The default agent has its page too; an unknown name is a 404 page.
      await page.goto(`${server.url}/agents/clawrun`);
      expect(await page.getByTestId("agent-name").textContent()).toContain("clawrun");
      await textOf(page.getByTestId("status"), /^uninitialized$/);
      const unknown = await context.request.get(`${server.url}/agents/nobody`);
      expect(unknown.status()).toBe(404);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
