import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { state } from "../../../tests/contracts/store/kit";
import { type FakeAnthropic, startFakeAnthropic } from "../../../tests/support/fake-anthropic";
import { type FakeOpenAI, startFakeOpenAI } from "../../../tests/support/fake-openai";
import { type FaultyStore, faultyStore } from "../../../tests/support/faulty-store";
import { SqliteStore } from "../store/sqlite/store";
import type { OpenDelivery, Store } from "../store/types";
import { tellConversationOnce } from "./cap-notice";
import { modelCredential } from "./credential";
import { type GatewayDeps, type GatewayEvent, handleModelCall } from "./forward";
import { SettlementBacklog } from "./settlement-backlog";
import { keepAliveUpstream } from "./upstream-client";

/** One client for the file, as one server process has (connections are reused across calls). */
const upstreamFetch = keepAliveUpstream();

/**
 * The gateway's request handling against real model-server stand-ins over HTTP and a real
 * SQLite store. (Routes under app/ only hand requests to handleModelCall.)
 */
const MASTER = "m".repeat(40);
const REAL_KEY = "sk-real-upstream-key";
const NOW = Date.parse("2026-12-02T12:00:00Z");
const CURRENT = { sandboxId: "sb-current", bootId: "boot-2" };
const CRED = modelCredential(MASTER, CURRENT);

let dir: string;
let store: SqliteStore;
let openai: FakeOpenAI;
let anthropic: FakeAnthropic;
const events: GatewayEvent[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "clawrun-gw-"));
  [openai, anthropic] = await Promise.all([
    startFakeOpenAI({ apiKey: REAL_KEY, models: ["gpt-4o-mini"] }),
    startFakeAnthropic({ apiKey: REAL_KEY }),
  ]);
});
afterAll(async () => {
  await Promise.all([openai.close(), anthropic.close(), ...opened.map((s) => s.close())]);
  await rm(dir, { recursive: true, force: true });
});

let instances = 0;
const opened: SqliteStore[] = [];
function deps(overrides: Partial<GatewayDeps> = {}, on?: Store): GatewayDeps {
  instances += 1;
  store = new SqliteStore(join(dir, "store.db"), { instance: `gw-${instances}` });
  opened.push(store);
  // sb-current runs (better-sqlite3 writes before the promise is returned).
  void store.state.compareAndSet(0, state({ ...CURRENT, status: "running" }));
  const s: Store = on ?? store;
  return {
    upstream: { kind: "openai-compatible", baseUrl: openai.baseUrl, apiKey: REAL_KEY },
    budget: { daily: 2, monthly: 20, currency: "USD" },
    prices: {},
    allowUnpriced: false,
    usage: s.usage,
    backlog: new SettlementBacklog(),
    masterSecret: MASTER,
    clock: () => NOW,
    fetchUpstream: upstreamFetch,
    timeoutMs: 2_000,
    logError: () => {},
    notify: async (e) => {
      events.push(e);
    },
    afterResponse: (work) => work(),
    tellConversation: async (delivery, notice) => {
      await tellConversationOnce(s, delivery, notice);
    },
    ...overrides,
  };
}

function call(
  body: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${CRED}` },
) {
  return new Request("http://gw/api/model/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const chat = {
  model: "gpt-4o-mini",
  messages: [{ role: "user", content: "hi there" }],
  max_tokens: 50,
};

describe("credentials", () => {
  it.each([
    ["missing", {}],
    ["forged", { authorization: "Bearer crm_c2ItY3VycmVudA.boot-2.forged" }],
    ["the real key itself", { authorization: `Bearer ${REAL_KEY}` }],
    [
      "another (stopped) sandbox's",
      { authorization: `Bearer ${modelCredential(MASTER, { ...CURRENT, sandboxId: "sb-old" })}` },
    ],
    [
      "the same sandbox's from an earlier wake",
      { authorization: `Bearer ${modelCredential(MASTER, { ...CURRENT, bootId: "boot-1" })}` },
    ],
    [
      "made with another secret",
      { authorization: `Bearer ${modelCredential("x".repeat(40), CURRENT)}` },
    ],
  ])("%s → 401, nothing forwarded or held", async (_name, headers) => {
    const d = deps();
    const before = openai.requests.length;
    const res = await handleModelCall(call(chat, headers), d, "openai", "/chat/completions");
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe("unauthorized");
    expect(openai.requests.length).toBe(before);
    expect((await d.usage.read("2026-12-02", "2026-12")).day.totalMicros).toBe(0);
  });
});

describe("credentials of a sandbox that stopped", () => {
  it("→ 401 once the sandbox is no longer running, nothing forwarded or held", async () => {
    const d = deps();
    const cur = await store.state.get();
    if (!cur) throw new Error("no state");
    await store.state.compareAndSet(cur.version, { ...cur.value, status: "sleeping" });
    const before = openai.requests.length;
    const res = await handleModelCall(call(chat), d, "openai", "/chat/completions");
    expect(res.status).toBe(401);
    expect(openai.requests.length).toBe(before);
    expect((await d.usage.read("2026-12-02", "2026-12")).day.totalMicros).toBe(0);
  });
});

describe("bad input", () => {
  it.each([
    ["not JSON", "{nope"],
    ["no model", { messages: [] }],
    ["an array", "[1]"],
  ])("%s → 400, nothing forwarded", async (_name, body) => {
    const d = deps();
    const before = openai.requests.length;
    const res = await handleModelCall(call(body), d, "openai", "/chat/completions");
    expect(res.status).toBe(400);
    expect(openai.requests.length).toBe(before);
  });

  it("refuses an unpriced model unless the operator allows it", async () => {
    const res = await handleModelCall(
      call({ ...chat, model: "mystery" }),
      deps(),
      "openai",
      "/chat/completions",
    );
    expect(res.status).toBe(403);
    expect((await res.json()).error.message).toMatch(/modelGateway\.prices/);
    const ok = await handleModelCall(
      call({ ...chat, model: "mystery" }),
      deps({ allowUnpriced: true }),
      "openai",
      "/chat/completions",
    );
    expect(ok.status).toBe(200);
  });
});

describe("OpenAI shape", () => {
  it("forwards with the real key and bills a non-streamed call", async () => {
    const d = deps();
    const res = await handleModelCall(call(chat), d, "openai", "/chat/completions");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.choices[0].message.content).toBeTruthy();
    const sent = openai.requests.at(-1);
    expect(sent?.headers.authorization).toBe(`Bearer ${REAL_KEY}`);
    // Not gzipped again by the framework (docs/model-gateway.md, "Speed").
    expect(res.headers.get("cache-control")).toBe("no-store, no-transform");
    const usage = await d.usage.read("2026-12-02", "2026-12");
    const m = usage.day.models["gpt-4o-mini"];
    expect(m?.calls).toBe(1);
    expect(m?.inputTokens).toBe(body.usage.prompt_tokens);
    // 0.15 $/M in, 0.6 $/M out; rounded up to a micro-dollar.
    const cost = Math.ceil(body.usage.prompt_tokens * 0.15 + body.usage.completion_tokens * 0.6);
    expect(usage.day.totalMicros).toBe(cost);
    expect(usage.month.totalMicros).toBe(cost);
  });

  it("answers before the bill is written, then writes it", async () => {
    let pending: (() => Promise<void>) | null = null;
    const d = deps({
      afterResponse: (work) => {
        pending = work;
        return Promise.resolve();
      },
    });
    const res = await handleModelCall(call(chat), d, "openai", "/chat/completions");
    expect(res.status).toBe(200);
    // Answered with the hold still counted and the call not yet billed.
    const before = await d.usage.read("2026-12-02", "2026-12");
    expect(before.day.models).toEqual({});
    expect(before.day.totalMicros).toBeGreaterThan(0);
    if (!pending) throw new Error("nothing was left for after the response");
    await (pending as () => Promise<void>)();
    expect((await d.usage.read("2026-12-02", "2026-12")).day.models["gpt-4o-mini"]?.calls).toBe(1);
  });

  it("forwards the agent's bytes as they came when nothing in the body changes", async () => {
    const got: Buffer[] = [];
    const raw = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on("data", (c: Buffer) => parts.push(c));
      req.on("end", () => {
        got.push(Buffer.concat(parts));
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            model: "gpt-4o-mini",
            choices: [],
            usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
          }),
        );
      });
    });
    await new Promise<void>((r) => raw.listen(0, "127.0.0.1", r));
    try {
      const port = (raw.address() as AddressInfo).port;
      const d = deps({
        upstream: {
          kind: "openai-compatible",
          baseUrl: `http://127.0.0.1:${port}/v1`,
          apiKey: REAL_KEY,
        },
      });
      // Spacing, key order and escapes a re-serialisation would not keep.
      const text =
        '{ "messages": [{"role":"user","content":"h\u00e9"}],\n  "model":"gpt-4o-mini" }';
      const res = await handleModelCall(call(text), d, "openai", "/chat/completions");
      expect(res.status).toBe(200);
      expect(got[0]?.toString("utf8")).toBe(text);
    } finally {
      raw.closeAllConnections();
      raw.close();
    }
  });

  it("streams through, asks for the usage chunk, and bills it", async () => {
    const d = deps();
    const res = await handleModelCall(
      call({ ...chat, stream: true }),
      d,
      "openai",
      "/chat/completions",
    );
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("cache-control")).toBe("no-store, no-transform");
    const text = await res.text();
    expect(text).toContain("data: [DONE]");
    expect(
      (openai.requests.at(-1)?.body as { stream_options?: unknown } | undefined)?.stream_options,
    ).toEqual({
      include_usage: true,
    });
    const usage = await d.usage.read("2026-12-02", "2026-12");
    expect(usage.day.models["gpt-4o-mini"]?.calls).toBe(1);
    expect(usage.day.totalMicros).toBeGreaterThan(0);
  });

  it("refuses a call past the daily cap in OpenAI's shape, and says when it resets", async () => {
    const d = deps({ budget: { daily: 0.000_1, currency: "USD" } });
    const res = await handleModelCall(
      call({ ...chat, max_tokens: 1_000 }),
      d,
      "openai",
      "/chat/completions",
    );
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe(String(12 * 3600));
    expect(await res.json()).toEqual({
      error: {
        message: "This agent reached its daily budget of $0.0001; it resets at 00:00 UTC.",
        type: "insufficient_quota",
        param: null,
        code: "budget_exceeded",
      },
    });
    expect(events.at(-1)).toMatchObject({ type: "model.budget_reached", period: "daily" });
  });

  it("writes the cap-reached event once per period and cap, however many calls are refused", async () => {
    events.length = 0;
    const d = deps({ budget: { daily: 0.000_1, currency: "USD" } });
    const big = call({ ...chat, max_tokens: 1_000 });
    const refuse = async () => {
      const res = await handleModelCall(big.clone(), d, "openai", "/chat/completions");
      expect(res.status).toBe(429);
    };
    for (let i = 0; i < 5; i++) await refuse();
    await Promise.all(Array.from({ length: 10 }, refuse));
    const reached = () => events.filter((e) => e.type === "model.budget_reached");
    expect(reached()).toEqual([expect.objectContaining({ period: "daily" })]);
    // The operator raises today's cap: the next refusal is at a new cap, told once again.
    await d.usage.raise("2026-12-02", 100);
    for (let i = 0; i < 3; i++) await refuse();
    expect(reached()).toHaveLength(2);
    expect(reached()[1]?.message).toContain("$0.0002");
  });

  it("lets 50 racing calls at the edge of the cap overshoot by at most one reservation", async () => {
    // Each call reserves ~ (bytes/4) × 0.15 + 50 × 0.6 micro-USD; the cap fits a handful.
    const d = deps({ budget: { daily: 0.000_2, currency: "USD" } });
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        handleModelCall(call(chat), d, "openai", "/chat/completions"),
      ),
    );
    const ok = results.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThan(0);
    expect(results.filter((r) => r.status === 429).length).toBe(50 - ok);
    const spent = (await d.usage.read("2026-12-02", "2026-12")).day.totalMicros;
    expect(spent).toBeLessThanOrEqual(200);
  });

  it("warns once at 80 % of a cap", async () => {
    events.length = 0;
    const d = deps({ budget: { daily: 0.001, currency: "USD" } });
    // Call until the cap refuses: spend passes the 80 % line on the way.
    for (let i = 0; i < 500; i++) {
      const res = await handleModelCall(call(chat), d, "openai", "/chat/completions");
      if (res.status === 429) break;
    }
    expect(events.filter((e) => e.type === "model.budget_warning")).toEqual([
      expect.objectContaining({ period: "daily" }),
    ]);
  });
});

describe("Anthropic shape", () => {
  const msg = {
    model: "claude-sonnet-4-20250514",
    max_tokens: 100,
    messages: [{ role: "user", content: "hi" }],
  };
  const up = () => ({ kind: "anthropic" as const, baseUrl: anthropic.baseUrl, apiKey: REAL_KEY });

  it("forwards with x-api-key and bills cache reads apart", async () => {
    const d = deps({ upstream: up() });
    const res = await handleModelCall(
      call(msg, { "x-api-key": CRED }),
      d,
      "anthropic",
      "/messages",
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(anthropic.requests.at(-1)?.headers["x-api-key"]).toBe(REAL_KEY);
    const m = (await d.usage.read("2026-12-02", "2026-12")).day.models["claude-sonnet-4-20250514"];
    expect(m).toMatchObject({
      calls: 1,
      inputTokens: body.usage.input_tokens,
      outputTokens: 7,
      cachedInputTokens: 3,
    });
  });

  it("streams through and bills message_start + message_delta usage", async () => {
    const d = deps({ upstream: up() });
    const res = await handleModelCall(
      call({ ...msg, stream: true }, { "x-api-key": CRED }),
      d,
      "anthropic",
      "/messages",
    );
    const text = await res.text();
    expect(text).toContain("event: message_stop");
    const m = (await d.usage.read("2026-12-02", "2026-12")).day.models["claude-sonnet-4-20250514"];
    expect(m).toMatchObject({ calls: 1, outputTokens: 7, cachedInputTokens: 3 });
  });

  it("refuses in Anthropic's error shape", async () => {
    const res = await handleModelCall(
      call(msg, { "x-api-key": "nope" }),
      deps({ upstream: up() }),
      "anthropic",
      "/messages",
    );
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      type: "error",
      error: { type: "authentication_error", message: expect.any(String) },
    });
  });
});

describe("upstream faults", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url?.includes("slow")) return; // never answers
      res.writeHead(429, {
        "content-type": "application/json",
        "retry-after": "7",
        "x-ratelimit-remaining-requests": "0",
      });
      res.end(
        JSON.stringify({ error: { message: "slow down", type: "rate_limit_error", code: null } }),
      );
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it("passes a 429 through with its retry hints and bills nothing", async () => {
    const d = deps({
      upstream: { kind: "openai-compatible", baseUrl: `${base}/v1`, apiKey: REAL_KEY },
    });
    const res = await handleModelCall(call(chat), d, "openai", "/chat/completions");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(res.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect((await res.json()).error.message).toBe("slow down");
    expect(await d.usage.read("2026-12-02", "2026-12")).toMatchObject({
      day: { totalMicros: 0, models: {} },
    });
  });

  it("answers 504 naming the upstream when it does not answer in time, and bills nothing", async () => {
    const d = deps({
      upstream: { kind: "openai-compatible", baseUrl: `${base}/slow/v1`, apiKey: REAL_KEY },
      timeoutMs: 300,
    });
    const res = await handleModelCall(call(chat), d, "openai", "/chat/completions");
    expect(res.status).toBe(504);
    expect((await res.json()).error.message).toContain(new URL(base).host);
    expect((await d.usage.read("2026-12-02", "2026-12")).day.totalMicros).toBe(0);
  });
});

/** A delivery under way, as the inbox's drain marks it (docs/model-gateway.md, "Conversations"). */
function delivery(id: string, conversation: string): OpenDelivery {
  return {
    id,
    channel: "generic",
    conversation,
    meta: { replyTo: conversation },
    until: NOW + 60_000,
  };
}

describe("conversations", () => {
  it("counts a call for the one conversation whose delivery is open, else as unattributed", async () => {
    const d = deps();
    const s = store;
    const ok = async () =>
      expect((await handleModelCall(call(chat), d, "openai", "/chat/completions")).status).toBe(
        200,
      );
    await ok(); // nothing open: a cron job, the agent's own work
    await s.deliveries.open(delivery("m-1", "alice"), NOW);
    await ok();
    await ok();
    await s.deliveries.open(delivery("m-2", "bob"), NOW); // two at once: cannot tell
    await ok();
    await s.deliveries.close("m-1");
    await s.deliveries.close("m-2");
    const { day, month } = await d.usage.read("2026-12-02", "2026-12");
    expect(Object.keys(day.conversations).sort()).toEqual(["", "generic:alice"]);
    expect(day.conversations["generic:alice"]?.calls).toBe(2);
    expect(day.conversations[""]?.calls).toBe(2);
    const sum = Object.values(day.conversations).reduce((a, c) => a + c.costMicros, 0);
    expect(sum).toBe(day.totalMicros);
    expect(month.conversations).toEqual(day.conversations);
  });

  it("tells the conversation ONCE per period that the cap refused its calls, from any server", async () => {
    const budget = { daily: 0.000_1, currency: "USD" as const };
    const first = deps({ budget });
    const shared = store;
    // A second server on the same store.
    const other = new SqliteStore(join(dir, "store.db"), { instance: `gw-${instances}` });
    opened.push(other);
    const second = deps({ budget }, other);
    await shared.deliveries.open(delivery("m-9", "carol"), NOW);
    const refused = await Promise.all(
      [first, second, first, second].map((d) =>
        handleModelCall(call({ ...chat, max_tokens: 1_000 }), d, "openai", "/chat/completions"),
      ),
    );
    expect(refused.map((r) => r.status)).toEqual([429, 429, 429, 429]);
    const notes = await shared.outbox.listPending(10);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({
      channel: "generic",
      conversation: "carol",
      meta: { replyTo: "carol" },
      text: "This agent reached its daily budget of $0.0001; it resets at 00:00 UTC.",
    });
    // Another conversation refused the same day gets its own notice.
    await shared.deliveries.close("m-9");
    await shared.deliveries.open(delivery("m-10", "dave"), NOW);
    await handleModelCall(
      call({ ...chat, max_tokens: 1_000 }),
      first,
      "openai",
      "/chat/completions",
    );
    expect((await shared.outbox.listPending(10)).map((n) => n.conversation)).toEqual([
      "carol",
      "dave",
    ]);
  });

  it("tells no one when the refused call is unattributed", async () => {
    const d = deps({ budget: { daily: 0.000_1, currency: "USD" } });
    const res = await handleModelCall(
      call({ ...chat, max_tokens: 1_000 }),
      d,
      "openai",
      "/chat/completions",
    );
    expect(res.status).toBe(429);
    expect(await store.outbox.listPending(10)).toEqual([]);
  });
});

describe("store down at settlement", () => {
  let faulty: FaultyStore;
  it("retries, then refuses this server's next calls (503) until the settlement is recorded", async () => {
    deps();
    faulty = faultyStore(store);
    const logged: string[] = [];
    const d = deps({ logError: (m) => logged.push(m) }, faulty.store);
    // The call is answered, but its settlement cannot be written: attempts are retried.
    faulty.failWrites((op) => op === "usage.settle");
    const first = await handleModelCall(call(chat), d, "openai", "/chat/completions");
    expect(first.status).toBe(200);
    const answer = await first.json();
    expect(faulty.refused.filter((op) => op === "usage.settle")).toHaveLength(3);
    expect(logged).toEqual([expect.stringMatching(/could not be recorded/)]);

    // Still down: the next call is refused before anything is forwarded or held.
    const before = openai.requests.length;
    const refused = await handleModelCall(call(chat), d, "openai", "/chat/completions");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect((await refused.json()).error).toMatchObject({
      code: "usage_unrecorded",
      type: "server_error",
      message: expect.stringMatching(/could not record the cost of 1 earlier model call/),
    });
    expect(openai.requests.length).toBe(before);

    // The store is back: the next call records the pending settlement first, then goes through.
    faulty.heal();
    const next = await handleModelCall(call(chat), d, "openai", "/chat/completions");
    expect(next.status).toBe(200);
    const usage = await faulty.store.usage.read("2026-12-02", "2026-12");
    expect(usage.day.models["gpt-4o-mini"]?.calls).toBe(2);
    expect(usage.day.models["gpt-4o-mini"]?.inputTokens).toBe(
      answer.usage.prompt_tokens + (await next.json()).usage.prompt_tokens,
    );
  });

  it("raises the 80 % warning a settlement reaches when it is recorded late", async () => {
    // What this exact call costs (the fake answers more tokens than max_tokens: 1 holds).
    const small = { ...chat, max_tokens: 1 };
    const probe = deps();
    await (await handleModelCall(call(small), probe, "openai", "/chat/completions")).text();
    const cost = (await probe.usage.read("2026-12-02", "2026-12")).day.totalMicros;
    expect(cost).toBeGreaterThan(0);
    // A cap of exactly that cost: the call's hold fits, its settlement reaches 80 % (and 100 %).
    deps();
    const f = faultyStore(store);
    const d = deps({ budget: { daily: cost / 1e6, currency: "USD" } }, f.store);
    events.length = 0;
    f.failWrites((op) => op === "usage.settle");
    expect((await handleModelCall(call(small), d, "openai", "/chat/completions")).status).toBe(200);
    expect(d.backlog.size).toBe(1);
    expect(events).toEqual([]);
    // The store is back: the next call records it first, and the warning is raised then.
    f.heal();
    await handleModelCall(call(small), d, "openai", "/chat/completions");
    expect(d.backlog.size).toBe(0);
    expect(events.filter((e) => e.type === "model.budget_warning")).toEqual([
      expect.objectContaining({ period: "daily", message: expect.stringContaining("80 %") }),
    ]);
  });

  it("a blip shorter than the retries loses nothing and refuses nothing", async () => {
    deps();
    const f = faultyStore(store);
    const d = deps({}, f.store);
    let failures = 0;
    f.failWrites((op) => op === "usage.settle" && ++failures <= 1);
    expect((await handleModelCall(call(chat), d, "openai", "/chat/completions")).status).toBe(200);
    expect(d.backlog.size).toBe(0);
    expect((await handleModelCall(call(chat), d, "openai", "/chat/completions")).status).toBe(200);
    expect(
      (await f.store.usage.read("2026-12-02", "2026-12")).day.models["gpt-4o-mini"]?.calls,
    ).toBe(2);
  });
});
