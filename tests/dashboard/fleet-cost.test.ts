import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/server/app-context";
import { createAppContext } from "../../src/server/compose/context";
import { monthStartUtc } from "../../src/server/dashboard/cost";
import { fleetCostOf } from "../../src/server/dashboard/fleet-members";
import { monthCostOf } from "../../src/server/dashboard/month-cost";
import { utcDay, utcMonth } from "../../src/server/model-gateway/periods";
import { type CountingStore, countingStore } from "../support/counting-store";
import { freePort } from "../support/free-port";
import {
  startVercelSandboxEmulator,
  type VercelSandboxEmulator,
} from "../support/vercel-sandbox-emulator";

/**
 * The fleet's cost card (GET /api/fleet/cost) over two agents of one deployment on real parts:
 * the SQLite store, the Vercel provider through its SDK and the Sandbox API emulator (its
 * `cost()` prices the sandbox). The agents differ in awake time and model spend; each line must
 * be that agent's own cost card, the total their sum, and the reads per agent bounded.
 */

const HOUR = 60 * 60_000;
let dir: string;
let emulator: VercelSandboxEmulator;
let contexts: { ctx: AppContext; counted: CountingStore }[] = [];

beforeAll(async () => {
  emulator = await startVercelSandboxEmulator();
  dir = mkdtempSync(join(tmpdir(), "clawrun-fleet-cost-"));
  writeFileSync(
    join(dir, "clawrun.json"),
    JSON.stringify({
      sandbox: { provider: "vercel" },
      agents: { clawrun: {}, team: { sandbox: { resources: { vcpus: 4 } } } },
    }),
  );
  const source = {
    PATH: process.env.PATH,
    ...emulator.env,
    CLAWRUN_STATE_DIR: dir,
    CLAWRUN_CONFIG: join(dir, "clawrun.json"),
    CLAWRUN_PUBLIC_URL: `http://127.0.0.1:${await freePort()}`,
    CLAWRUN_SECRET: randomBytes(24).toString("hex"),
    ADMIN_SECRET: randomBytes(24).toString("hex"),
    CRON_SECRET: randomBytes(24).toString("hex"),
    CLAWRUN_WEBHOOK_SECRET: randomBytes(24).toString("hex"),
    CLAWRUN_LOCAL_TICK: "0",
  };
  const logger = pino({ level: "silent" });
  // Counting stores around the real ones: every read the card makes is counted.
  let first: CountingStore | null = null;
  const a = await createAppContext({
    source,
    logger,
    agentName: "clawrun",
    wrapStore: (s) => {
      first = countingStore(s);
      return first.store;
    },
  });
  let second: CountingStore | null = null;
  const b = await createAppContext({
    source,
    logger,
    agentName: "team",
    deploymentStore: a.store,
    wrapStore: (s) => {
      second = countingStore(s);
      return second.store;
    },
  });
  contexts = [
    { ctx: a, counted: first as unknown as CountingStore },
    { ctx: b, counted: second as unknown as CountingStore },
  ];
});

afterAll(async () => {
  for (const { ctx } of contexts) await ctx.close().catch(() => undefined);
  await emulator?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the fleet's cost card (GET /api/fleet/cost)", () => {
  it("gives each agent its own card's figures and the deployment's total", async () => {
    const [a, b] = contexts.map((c) => c.ctx) as [AppContext, AppContext];
    // A fixed instant mid-month: the card's figures do not depend on today's date.
    const now = Date.UTC(2026, 5, 15, 12);
    const start = now - 4 * HOUR;
    // Different usage: clawrun awake 2 hours, team 30 minutes on 4 vCPUs with $1.50 of model calls.
    await a.store.awake.record({ sandboxId: "sbx-a", start, end: start + 2 * HOUR });
    await b.store.awake.record({ sandboxId: "sbx-b", start, end: start + HOUR / 2 });
    const day = utcDay(now);
    const month = utcMonth(now);
    const held = await b.store.usage.reserve({
      now,
      day,
      month,
      amount: 1_500_000,
      dayLimit: null,
      monthLimit: null,
    });
    expect(held.held).toBe(true);
    await b.store.usage.settle({
      day,
      month,
      reserved: 1_500_000,
      cost: 1_500_000,
      model: "gpt-4o-mini",
      conversation: "",
      tokens: { input: 10, output: 10, cachedInput: 0 },
      warnDayAt: null,
      warnMonthAt: null,
    });

    const members = [
      { ctx: a, isDefault: true },
      { ctx: b, isDefault: false },
    ];
    const before = contexts.map((c) => c.counted.byOperation());
    const card = await fleetCostOf(members, now);
    const reads = contexts.map((c, i) => {
      const after = c.counted.byOperation();
      const was = before[i] ?? {};
      return Object.fromEntries(
        Object.entries(after)
          .map(([k, v]) => [k, v - (was[k] ?? 0)] as const)
          .filter(([, v]) => v > 0),
      );
    });
    // docs/api.md: three store reads per agent (state, awake intervals, usage counters).
    for (const r of reads) expect(r).toEqual({ "state.get": 1, "awake.list": 1, "usage.read": 1 });

    const [own, teamOwn] = await Promise.all([monthCostOf(a, now), monthCostOf(b, now)]);
    expect(card.agents.map((l) => [l.name, l.isDefault, l.provider, l.error])).toEqual([
      ["clawrun", true, "vercel", null],
      ["team", false, "vercel", null],
    ]);
    const [la, lb] = card.agents as [(typeof card.agents)[0], (typeof card.agents)[0]];
    expect(la.awakeMs).toBe(2 * HOUR);
    expect(lb.awakeMs).toBe(HOUR / 2);
    expect(la.sandboxUsd).toBe(own.totalUsd);
    expect(lb.sandboxUsd).toBe(teamOwn.totalUsd);
    // 2 vCPU-hours × 2 vs 4 vCPUs × 0.5 h: the provider priced each agent's own resources.
    expect(la.sandboxUsd).toBeGreaterThan(0);
    expect(lb.sandboxUsd).toBeGreaterThan(0);
    expect(la.sandboxUsd).not.toBeCloseTo(lb.sandboxUsd, 6);
    expect(la.modelUsd).toBe(0);
    expect(lb.modelUsd).toBeCloseTo(1.5, 6);
    expect(lb.totalUsd).toBeCloseTo(teamOwn.totalUsd + 1.5, 6);
    expect(la.atMost).toBe(true);
    expect(card.total.sandboxUsd).toBeCloseTo(own.totalUsd + teamOwn.totalUsd, 9);
    expect(card.total.modelUsd).toBeCloseTo(1.5, 6);
    expect(card.total.totalUsd).toBeCloseTo(own.totalUsd + teamOwn.totalUsd + 1.5, 9);
    expect(card.incomplete).toBe(false);
    expect(card.rates.map((r) => r.source)).toEqual([
      "https://vercel.com/docs/vercel-sandbox/pricing",
    ]);
    expect(card.monthStart).toBe(monthStartUtc(now));
  });
});
