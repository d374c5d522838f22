import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import Redis from "ioredis";
import pino from "pino";
import { type Browser, chromium } from "playwright-core";
import { conversationFileName } from "../../src/agent-echo/conversation-log";
import { LocalProvider } from "../../src/server/providers/local/local-provider";
import { type ClawrunServer, startClawrun } from "../../tests/support/clawrun-server";
import { signIn } from "../../tests/support/dashboard-page";
import { waitFor } from "../../tests/support/free-port";
import { operatorGet, sendMessage } from "../../tests/support/messages";
import { ensureNextBuild } from "../../tests/support/next-build";
import { startRedisServer } from "../../tests/support/redis-server";
import { startVercelSandboxEmulator } from "../../tests/support/vercel-sandbox-emulator";
import { spawnAnchor } from "./spawn-anchor";

/**
 * Several agents in one deployment (docs/several-agents.md, issue 25), against the production
 * server (`next start`, echo agents):
 *  1. burst: BENCH_BURST_AGENTS (10) sleeping agents on the local provider each get
 *     BENCH_BURST_MESSAGES (10) signed messages at once, one conversation per agent sent in order
 *     (the next after the previous 202, as chat platforms do), BENCH_BURST_ROUNDS (3) times.
 *     Wakes, deliveries (each message once and in order, from the echo agent's conversation
 *     files), 202 p50/p99 and the time until all are delivered, next to the single-agent wake (one
 *     agent, one message) and N bare Node spawns at once vs one, before each round.
 *  2. idle fleet: BENCH_IDLE_AGENTS (50) sleeping agents on the Vercel provider through the API
 *     emulator, Redis store on a throwaway redis-server; BENCH_TICKS (5) × GET /api/cron. Provider
 *     calls per tick (emulator requests) and store commands per agent per tick (INFO
 *     commandstats, which counts the commands inside scripts too; MONITOR gives those the server
 *     sends itself), by command, next to the same quiet time without a tick.
 *  3. fleet dashboard: Chromium, signed in, navigation → the fleet table showing every row of (2),
 *     p50 over BENCH_LOADS (5) loads, next to a one-line page from a bare Node server and the
 *     same server's sign-in page; the fleet stream's first event alone beside them.
 * Reported, not asserted (DESIGN). BENCH_PARTS=burst,idle,dashboard picks parts (dashboard needs idle).
 *   npm run bench -- fleet
 */

const BURST_AGENTS = Number(process.env.BENCH_BURST_AGENTS ?? 10);
const BURST_MESSAGES = Number(process.env.BENCH_BURST_MESSAGES ?? 10);
/**
 * Node.js processes one local wake starts: the sandbox's watchdog, the sidecar and the echo
 * daemon (docs/local-provider.md); a burst of N wakes starts N times as many on one machine.
 */
const NODE_PROCESSES_PER_WAKE = 3;
const BURST_ROUNDS = Number(process.env.BENCH_BURST_ROUNDS ?? 3);
const IDLE_AGENTS = Number(process.env.BENCH_IDLE_AGENTS ?? 50);
const TICKS = Number(process.env.BENCH_TICKS ?? 5);
const LOADS = Number(process.env.BENCH_LOADS ?? 5);
/** Agents woken (or put to sleep) at once in setup: a 2-core machine chokes on 50 wakes at once. */
const SETUP_BATCH = Number(process.env.BENCH_SETUP_BATCH ?? 5);
const PARTS = (process.env.BENCH_PARTS ?? "burst,idle,dashboard").split(",");

type Event = { type: string; at: number; details: Record<string, unknown> };
type FleetRow = { name: string; status: string; pending: number };

const names = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(2, "0")}`);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN;
};
const ms = (n: number) => `${n.toFixed(0)} ms`;
const load = () => `load ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores`;

// ---- operator API helpers (docs/api.md, "Several agents") ----

const fleet = async (server: ClawrunServer) =>
  (await operatorGet<{ agents: FleetRow[] }>(server, "/api/agents")).agents;

const eventsOf = async (server: ClawrunServer, agent: string) =>
  (await operatorGet<{ events: Event[] }>(server, `/api/agents/${agent}/sandbox/events?limit=1000`))
    .events;

async function untilStatus(server: ClawrunServer, agents: string[], status: string, ms = 120_000) {
  let rows: FleetRow[] = [];
  await waitFor(
    `${agents.length} agents ${status}`,
    async () => {
      rows = await fleet(server);
      return agents.every((a) => rows.find((r) => r.name === a)?.status === status);
    },
    ms,
    200,
  ).catch((err: Error) => {
    const off = rows.filter((r) => agents.includes(r.name) && r.status !== status);
    throw new Error(`${err.message}: ${JSON.stringify(off).slice(0, 1_000)}`);
  });
}

async function delivered(server: ClawrunServer, agent: string, id: string): Promise<Event> {
  return waitFor(
    `${agent} to receive ${id}`,
    async () =>
      (await eventsOf(server, agent)).find(
        (e) => e.type === "message.delivered" && e.details.messageId === id,
      ),
    120_000,
    50,
  );
}

async function stop(server: ClawrunServer, agent: string): Promise<void> {
  const res = await fetch(`${server.url}/api/agents/${agent}/sandbox/stop`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.secrets.admin}` },
  });
  if (res.status !== 202) throw new Error(`stop ${agent}: ${res.status} ${await res.text()}`);
}

/** Stop, and ask again if the agent is still awake after 30 s (a stop it refused as busy). */
async function sleepNow(server: ClawrunServer, agent: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await stop(server, agent).catch((err: Error) => {
      if (!/\b409\b/.test(err.message)) throw err;
    });
    try {
      return await untilStatus(server, [agent], "sleeping", 30_000);
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
}

/** Wakes each agent once (so it has a snapshot) and puts it to sleep, SETUP_BATCH at a time. */
async function fallAsleep(server: ClawrunServer, agents: string[]): Promise<void> {
  for (let i = 0; i < agents.length; i += SETUP_BATCH) {
    const batch = agents.slice(i, i + SETUP_BATCH);
    await Promise.all(
      batch.map(async (a) => {
        const sent = await sendMessage(
          server,
          { id: `setup-${a}`, conversation: "setup", text: "hi" },
          a,
        );
        if (sent.status !== 202) throw new Error(`setup message to ${a}: ${sent.status}`);
        await delivered(server, a, `setup-${a}`);
        await sleepNow(server, a);
      }),
    );
  }
}

/** Local sandboxes outlive the server on purpose; stop() only knows the default state dir's. */
async function stopAgentSandboxes(server: ClawrunServer, agents: string[]): Promise<void> {
  await server.halt();
  const logger = pino({ level: "silent" });
  for (const a of agents) {
    const p = new LocalProvider({
      stateDir: join(server.stateDir, "agents", a),
      sharedDir: server.stateDir,
      logger,
    });
    for (const s of await p.list().catch(() => []))
      await (await p.get(s.id)).stop().catch(() => undefined);
  }
}

// ---- 1. burst ----

/** One agent, one message → delivered (the event's time); the agent is asleep before and after. */
async function singleWake(server: ClawrunServer, agent: string, round: number): Promise<number> {
  const sentAt = Date.now();
  const id = `single-${round}`;
  const res = await sendMessage(server, { id, conversation: "single", text: "wake" }, agent);
  if (res.status !== 202) throw new Error(`single wake: ${res.status}`);
  const took = (await delivered(server, agent, id)).at - sentAt;
  await sleepNow(server, agent);
  return took;
}

/** Each agent's conversation as a platform sends it: in order, all agents at once. */
async function sendBurst(server: ClawrunServer, agents: string[], conversation: string) {
  const acks: number[] = [];
  const statuses = new Map<number, number>();
  const accepted = new Map<string, string[]>();
  await Promise.all(
    agents.map(async (agent) => {
      const ids: string[] = [];
      accepted.set(agent, ids);
      for (let i = 0; i < BURST_MESSAGES; i++) {
        const id = `${conversation}-${agent}-m${i}`;
        const t0 = performance.now();
        const res = await sendMessage(server, { id, conversation, text: `m ${i}` }, agent);
        acks.push(performance.now() - t0);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 202) ids.push(id);
      }
    }),
  );
  return { acks, statuses, accepted };
}

/** Ids in the agent's conversation file (its current sandbox, restored from the snapshot). */
async function conversationIds(
  server: ClawrunServer,
  agent: string,
  conversation: string,
): Promise<string[]> {
  const { instance } = await operatorGet<{ instance: { sandboxId: string } }>(
    server,
    `/api/agents/${agent}`,
  );
  const p = new LocalProvider({
    stateDir: join(server.stateDir, "agents", agent),
    sharedDir: server.stateDir,
    logger: pino({ level: "silent" }),
  });
  const root = (await p.get(instance.sandboxId)).root;
  const file = join(root, "conversations", `${conversationFileName(conversation)}.jsonl`);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { id: string }).id);
}

interface BurstRound {
  acks: number[];
  statuses: Map<number, number>;
  wakes: number;
  inOrder: number;
  wrong: string[];
  /** First message sent → the last one delivered (event time). */
  allMs: number;
  /** Per agent: first message sent → its last one delivered. */
  perAgentMs: number[];
  /** Per agent: first message sent → running again (its wake, from status.running). */
  wakeMs: number[];
}

/** Every agent asleep, then BURST_MESSAGES to each at once; checked once nothing is pending. */
async function burstRound(server: ClawrunServer, agents: string[], round: number) {
  const conversation = `burst-${round}`;
  const startedAt = Date.now();
  const { acks, statuses, accepted } = await sendBurst(server, agents, conversation);
  await waitFor(
    "nothing pending",
    async () => (await fleet(server)).every((r) => r.pending === 0),
    180_000,
    200,
  );
  const out: BurstRound = {
    acks,
    statuses,
    wakes: 0,
    inOrder: 0,
    wrong: [],
    allMs: 0,
    perAgentMs: [],
    wakeMs: [],
  };
  for (const agent of agents) {
    const events = (await eventsOf(server, agent)).filter((e) => e.at >= startedAt);
    out.wakes += events.filter((e) => e.type === "status.running").length;
    const last = Math.max(...events.filter((e) => e.type === "message.delivered").map((e) => e.at));
    out.perAgentMs.push(last - startedAt);
    const running = events.filter((e) => e.type === "status.running").map((e) => e.at);
    if (running.length) out.wakeMs.push(Math.min(...running) - startedAt);
    const got = await conversationIds(server, agent, conversation);
    if (JSON.stringify(got) === JSON.stringify(accepted.get(agent))) out.inOrder++;
    else out.wrong.push(`${agent}: ${got.length} of ${accepted.get(agent)?.length}`);
  }
  out.allMs = Math.max(...out.perAgentMs);
  return out;
}

/** The machine's own parallelism: `n` bare Node servers spawned at once → all listening. */
async function spawnAtOnce(n: number): Promise<number> {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: n }, () => spawnAnchor(1)));
  return performance.now() - t0;
}

async function burst(): Promise<void> {
  const agents = names("a", BURST_AGENTS);
  const config = { agents: Object.fromEntries(agents.map((a) => [a, {}])) };
  const server = await startClawrun({ config });
  try {
    await fallAsleep(server, agents);
    const single: number[] = [];
    const rounds: BurstRound[] = [];
    const spawnOne: number[] = [];
    const spawnAll: number[] = [];
    const spawnPerWake: number[] = [];
    for (let r = 0; r < BURST_ROUNDS; r++) {
      // The anchors next to each round: the same load drifts within a run on a shared machine.
      single.push(await singleWake(server, agents[0] as string, r));
      spawnOne.push(await spawnAtOnce(1));
      spawnAll.push(await spawnAtOnce(agents.length));
      spawnPerWake.push(await spawnAtOnce(NODE_PROCESSES_PER_WAKE * agents.length));
      rounds.push(await burstRound(server, agents, r));
      await Promise.all(agents.map((a) => sleepNow(server, a)));
    }
    printBurst(agents.length, rounds, single, spawnOne, spawnAll, spawnPerWake);
  } finally {
    await stopAgentSandboxes(server, agents);
    await server.stop();
  }
}

function printBurst(
  n: number,
  rounds: BurstRound[],
  single: number[],
  spawnOne: number[],
  spawnAll: number[],
  spawnPerWake: number[],
): void {
  const acks = rounds.flatMap((r) => r.acks);
  const statuses = new Map<number, number>();
  for (const r of rounds)
    for (const [s, k] of r.statuses) statuses.set(s, (statuses.get(s) ?? 0) + k);
  const all = rounds.map((r) => r.allMs);
  const list = (xs: number[]) => xs.map(ms).join(", ");
  const median = (xs: number[]) => pct(xs, 0.5);
  console.log(
    `\n### burst: ${n} sleeping agents × ${BURST_MESSAGES} messages at once, local provider, ${rounds.length} rounds\n`,
  );
  console.log("| measure | value |");
  console.log("| ------- | ----- |");
  console.log(`| answers | ${[...statuses].map(([s, k]) => `${k} × ${s}`).join(", ")} |`);
  console.log(
    `| wakes per round (status.running after it began) | ${rounds.map((r) => r.wakes).join(", ")} for ${n} agents |`,
  );
  const wrong = rounds.flatMap((r) => r.wrong);
  console.log(
    `| conversations delivered once and in order | ${rounds.reduce((a, r) => a + r.inOrder, 0)} of ${n * rounds.length}${wrong.length ? ` (${wrong.join("; ")})` : ""} |`,
  );
  console.log(`| 202 p50 / p99 | ${ms(pct(acks, 0.5))} / ${ms(pct(acks, 0.99))} |`);
  const wakes = rounds.flatMap((r) => r.wakeMs);
  console.log(
    `| per agent: first message → running (its wake), p50 / max | ${ms(median(wakes))} / ${ms(Math.max(...wakes))} |`,
  );
  console.log(
    `| per agent: first message → its last delivered, p50 / max | ${ms(median(rounds.flatMap((r) => r.perAgentMs)))} / ${ms(Math.max(...rounds.flatMap((r) => r.perAgentMs)))} |`,
  );
  console.log(
    `| first message → all ${n * BURST_MESSAGES} delivered, median (each round) | ${ms(median(all))} (${list(all)}) |`,
  );
  console.log(
    `| anchor: one agent, one message → delivered, median (each round) | ${ms(median(single))} (${list(single)}) |`,
  );
  console.log(`| ratio (goal ≤ 2×) | ${(median(all) / median(single)).toFixed(2)}× |`);
  console.log(
    `| machine: ${n} bare Node spawns at once vs one → listening, median | ${ms(median(spawnAll))} vs ${ms(median(spawnOne))} (${(median(spawnAll) / median(spawnOne)).toFixed(2)}×) |`,
  );
  console.log(
    `| machine: the Node processes ${n} local wakes start (${NODE_PROCESSES_PER_WAKE * n}) spawned at once vs one | ${ms(median(spawnPerWake))} (${(median(spawnPerWake) / median(spawnOne)).toFixed(2)}×); the burst against it: ${(median(all) / median(spawnPerWake)).toFixed(2)}× |`,
  );
  console.log(`| ${load()} | |`);
}

// ---- 2. idle fleet ----

/** `cmdstat_<name>:calls=N,...` lines of INFO commandstats, as a map. */
async function commandStats(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info("commandstats");
  const out = new Map<string, number>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    out.set(m[1] as string, Number(m[2]));
  return out;
}

/** Commands between two snapshots, without the INFO calls this bench makes itself. */
function commandDelta(
  before: Map<string, number>,
  after: Map<string, number>,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [cmd, n] of after) {
    if (cmd === "info") continue;
    const d = n - (before.get(cmd) ?? 0);
    if (d > 0) out.set(cmd, d);
  }
  return out;
}
const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** Provider calls and store commands of `action` (emulator requests, redis commandstats). */
async function counted(
  redis: Redis,
  requests: { method: string; path: string }[],
  action: () => Promise<void>,
): Promise<{ calls: number; commands: Map<string, number>; ms: number }> {
  const calls0 = requests.length;
  const before = await commandStats(redis);
  const t0 = performance.now();
  await action();
  const took = performance.now() - t0;
  const commands = commandDelta(before, await commandStats(redis));
  return { calls: requests.length - calls0, commands, ms: took };
}

/**
 * The commands the server sends itself, per command: MONITOR names a command a Lua script ran
 * "lua", and INFO commandstats counts those too (an EVALSHA and each command inside it).
 */
async function watchSent(url: string) {
  const client = new Redis(url);
  const monitor = await client.monitor(); // a connection of its own
  const sent = new Map<string, number>();
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    const cmd = (args[0] ?? "").toLowerCase();
    if (source !== "lua" && cmd !== "info") sent.set(cmd, (sent.get(cmd) ?? 0) + 1);
  });
  return {
    sent,
    async stop() {
      await new Promise((r) => setTimeout(r, 500)); // the last lines still on their way
      monitor.disconnect();
      client.disconnect();
    },
  };
}

/** Setup's after-the-response work (the last sleeps) done: 2 s without a command or a call. */
async function untilQuiet(redis: Redis, requests: { method: string; path: string }[]) {
  await waitFor(
    "the store and the provider to go quiet",
    async () => {
      const q = await counted(redis, requests, () => new Promise((r) => setTimeout(r, 2_000)));
      return q.calls === 0 && total(q.commands) === 0;
    },
    60_000,
    0,
  );
}

async function idleFleet(): Promise<void> {
  const agents = names("f", IDLE_AGENTS);
  const emulator = await startVercelSandboxEmulator();
  const redisServer = await startRedisServer();
  const redis = new Redis(redisServer.url);
  const server = await startClawrun({
    config: {
      sandbox: { provider: "vercel", activeDuration: 600 },
      agents: Object.fromEntries(agents.map((a) => [a, {}])),
    },
    // No local tick loop: the ticks counted are the bench's GET /api/cron.
    env: { ...emulator.env, REDIS_URL: redisServer.url, CLAWRUN_LOCAL_TICK: "0" },
  });
  try {
    const t0 = performance.now();
    await fallAsleep(server, agents);
    const setupS = (performance.now() - t0) / 1000;
    await untilQuiet(redis, emulator.requests);

    const tickMs: number[] = [];
    const tickAll = async () => {
      const t = performance.now();
      const res = await fetch(`${server.url}/api/cron`, {
        headers: { authorization: `Bearer ${server.secrets.cron}` },
      });
      const body = (await res.json()) as { agents?: Record<string, unknown> };
      if (res.status !== 200 || Object.keys(body.agents ?? {}).length !== agents.length)
        throw new Error(`GET /api/cron: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      return performance.now() - t;
    };
    // The first tick after the fleet fell asleep is a full one (each agent's state changed since
    // this server last ticked it); the ones after are the idle fleet's steady state, the quiet
    // tick (docs/lifecycle.md).
    let firstMs = 0;
    const first = await counted(redis, emulator.requests, async () => {
      firstMs = await tickAll();
    });
    const watch = await watchSent(redisServer.url);
    const ticks = await counted(redis, emulator.requests, async () => {
      for (let i = 0; i < TICKS; i++) tickMs.push(await tickAll());
    });
    await watch.stop();
    // The anchor: the same time with no tick (what the idle server does on its own).
    const quiet = await counted(
      redis,
      emulator.requests,
      () => new Promise((r) => setTimeout(r, ticks.ms)),
    );

    const per = (n: number) => (n / (agents.length * TICKS)).toFixed(2);
    console.log(
      `\n### idle fleet: ${agents.length} sleeping agents on the Vercel provider (API emulator), Redis store, ${TICKS} × GET /api/cron\n`,
    );
    console.log(
      `setup (${agents.length} wakes and sleeps, ${SETUP_BATCH} at a time): ${setupS.toFixed(0)} s\n`,
    );
    console.log(
      `first tick after the fleet fell asleep (a full one): ${first.calls} provider calls, ${(total(first.commands) / agents.length).toFixed(2)} store commands per agent, ${ms(firstMs)}\n`,
    );
    console.log(`the next ${TICKS} ticks:\n`);
    console.log("| measure | ticks | anchor: same time, no tick |");
    console.log("| ------- | ----- | -------------------------- |");
    console.log(
      `| provider calls per tick (goal 0) | ${(ticks.calls / TICKS).toFixed(1)} (${per(ticks.calls)} per agent) | ${quiet.calls} in all |`,
    );
    console.log(
      `| store commands per agent per tick (goal ≤ 1) | ${per(total(ticks.commands))} | ${total(quiet.commands)} in all |`,
    );
    console.log(
      `| store commands sent per agent per tick (not inside a script) | ${per(total(watch.sent))} | |`,
    );
    console.log(
      `| GET /api/cron p50 / max | ${ms(pct(tickMs, 0.5))} / ${ms(Math.max(...tickMs))} | |`,
    );
    console.log(`| ${load()} | | |`);
    console.log(
      "\n| store command | per agent per tick (commandstats) | in all | sent (not inside a script), in all |",
    );
    console.log("| ------------- | ------------------ | ------ | ------ |");
    const cmds = new Set([...ticks.commands.keys(), ...watch.sent.keys()]);
    for (const cmd of [...cmds].sort(
      (a, b) => (ticks.commands.get(b) ?? 0) - (ticks.commands.get(a) ?? 0),
    )) {
      const n = ticks.commands.get(cmd) ?? 0;
      console.log(`| ${cmd} | ${per(n)} | ${n} | ${watch.sent.get(cmd) ?? 0} |`);
    }
    const paths = new Map<string, number>();
    for (const r of emulator.requests.slice(emulator.requests.length - ticks.calls - quiet.calls)) {
      const path = r.path.replace(/\/[^/]*_[^/]+/g, "/:id");
      paths.set(`${r.method} ${path}`, (paths.get(`${r.method} ${path}`) ?? 0) + 1);
    }
    if (paths.size)
      console.log(
        `\nprovider calls by path: ${[...paths].map(([p, n]) => `${p} × ${n}`).join(", ")}`,
      );

    if (PARTS.includes("dashboard")) await dashboard(server, agents.length);
  } finally {
    await server.stop();
    redis.disconnect();
    await redisServer.stop();
    await emulator.close();
  }
}

// ---- 3. fleet dashboard ----

/** Navigation → `count` fleet rows, read in the page (ms since its navigation began). */
async function pageTimes(
  browser: Browser,
  url: string,
  path: string,
  selector: string,
  count: number,
  signInWith?: string,
) {
  const context = await browser.newContext();
  try {
    if (signInWith) {
      const page = await context.newPage();
      await page.goto(`${url}/login`);
      await signIn(page, signInWith);
      await page.waitForURL(`${url}/`);
      await page.close();
    }
    const out: number[] = [];
    const ttfb: number[] = [];
    // One more load than counted: the first warms the server's and the browser's caches.
    for (let i = 0; i <= LOADS; i++) {
      const page = await context.newPage();
      await page.goto(`${url}${path}`, { waitUntil: "commit" });
      const at = await page.waitForFunction(
        ({ selector, count }) =>
          // globalThis: the page's clock (tsx would rename a bare `performance` to this file's import).
          document.querySelectorAll(selector).length >= count
            ? globalThis.performance.now()
            : false,
        { selector, count },
        { polling: "raf", timeout: 30_000 },
      );
      const firstByte = await page.evaluate(
        () =>
          (globalThis.performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming)
            .responseStart,
      );
      if (i > 0) {
        out.push((await at.jsonValue()) as number);
        ttfb.push(firstByte);
      }
      await page.close();
    }
    return Object.assign(out, { ttfb });
  } finally {
    await context.close();
  }
}

/**
 * The page's rows come from GET /api/fleet/stream's first `event: fleet` (app/_fleet/use-fleet.ts):
 * that request alone, from Node, LOADS times (ms until the event arrives).
 */
async function firstFleetEvent(server: ClawrunServer): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const abort = new AbortController();
    const t0 = performance.now();
    const res = await fetch(`${server.url}/api/fleet/stream`, {
      headers: { authorization: `Bearer ${server.secrets.admin}` },
      signal: abort.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("event: fleet")) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the fleet stream ended without an event: ${text.slice(0, 200)}`);
      text += decoder.decode(value, { stream: true });
    }
    out.push(performance.now() - t0);
    abort.abort();
  }
  return out;
}

async function dashboard(server: ClawrunServer, rows: number): Promise<void> {
  const bare = createServer((_, res) => {
    res.setHeader("content-type", "text/html");
    res.end("<!doctype html><title>anchor</title><p id=line>one line</p>");
  });
  await new Promise<void>((r) => bare.listen(0, "127.0.0.1", () => r()));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  try {
    const fleetMs = await pageTimes(
      browser,
      server.url,
      "/",
      '[data-testid="fleet-row"]',
      rows,
      server.secrets.admin,
    );
    const anchor = await pageTimes(browser, bareUrl, "/", "#line", 1);
    // The same server's sign-in page: Next's own cost of a page, without the fleet's data.
    const login = await pageTimes(browser, server.url, "/login", "input[type=password]", 1);
    console.log(
      `\n### fleet dashboard, ${rows} agents: navigation → ${rows} rows in the page (${LOADS} loads after one warm-up)\n`,
    );
    console.log("| page | p50 | max |");
    console.log("| ---- | --- | --- |");
    console.log(
      `| fleet table, ${rows} rows (goal ≤ 500 ms) | ${ms(pct(fleetMs, 0.5))} | ${ms(Math.max(...fleetMs))} |`,
    );
    console.log(
      `| anchor: one-line page, bare Node server | ${ms(pct(anchor, 0.5))} | ${ms(Math.max(...anchor))} |`,
    );
    console.log(
      `| anchor: sign-in page, same server | ${ms(pct(login, 0.5))} | ${ms(Math.max(...login))} |`,
    );
    console.log(
      `| part: the fleet page's first byte (server render, rows included) | ${ms(pct(fleetMs.ttfb, 0.5))} | ${ms(Math.max(...fleetMs.ttfb))} |`,
    );
    console.log(
      `| part: the sign-in page's first byte | ${ms(pct(login.ttfb, 0.5))} | ${ms(Math.max(...login.ttfb))} |`,
    );
    const stream = await firstFleetEvent(server);
    console.log(
      `| part: GET /api/fleet/stream → first event: fleet (Node fetch) | ${ms(pct(stream, 0.5))} | ${ms(Math.max(...stream))} |`,
    );
    console.log(`| ${load()} | | |`);
  } finally {
    await browser.close();
    bare.close();
  }
}

async function main(): Promise<void> {
  // The in-sandbox bundles (sidecar, watchdog) as the test setup builds them, and the Next build.
  execFileSync(process.execPath, ["--import", "tsx", "scripts/bundle.ts"], { stdio: "inherit" });
  ensureNextBuild();
  if (PARTS.includes("burst")) await burst();
  if (PARTS.includes("idle") || PARTS.includes("dashboard")) await idleFleet();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
