import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelCredential, newBootId } from "../../src/server/model-gateway/credential";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { type FakeOpenAI, startFakeOpenAI } from "../support/fake-openai";
import { waitFor } from "../support/free-port";
import { currentModelCredential } from "../support/model-credential";

/**
 * The model gateway through the real Next server: a `command` agent with `agent.model` gets
 * the gateway URL and its sandbox's credential; its calls reach the (fake) model server with
 * the real key, are billed, and the real key is nowhere in the daemon's environment.
 */
const REAL_KEY = "sk-real-key-never-in-the-sandbox";

// The daemon: on a message, asks the model through CLAWRUN_MODEL_URL and replies with its
// answer and whether any of its environment holds the real key.
const daemon = `
const http = require("http");
http.createServer((q, s) => {
  if (q.method !== "POST") { s.end("ok"); return; }
  let b = ""; q.on("data", (c) => (b += c)); q.on("end", async () => {
    const m = JSON.parse(b);
    const leaked = Object.values(process.env).some((v) => v && v.includes(${JSON.stringify(REAL_KEY)}));
    const r = await fetch(process.env.CLAWRUN_MODEL_URL + "/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer " + process.env.CLAWRUN_MODEL_KEY },
      body: JSON.stringify({ model: "gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: m.text + " leaked=" + leaked }] }),
    });
    const j = await r.json();
    s.setHeader("content-type", "application/json");
    s.end(JSON.stringify({ reply: r.status + " " + (j.choices ? j.choices[0].message.content : j.error.message) + " leaked=" + leaked }));
  });
}).listen(process.env.PORT);`;

let server: ClawrunServer;
let model: FakeOpenAI;

beforeAll(async () => {
  model = await startFakeOpenAI({ apiKey: REAL_KEY, models: ["gpt-4o-mini"] });
  server = await startClawrun({
    config: {
      agent: {
        type: "command",
        command: "node",
        args: ["-e", daemon],
        model: {
          provider: "openai-compatible",
          baseUrl: model.baseUrl,
          model: "gpt-4o-mini",
          apiKey: { fromEnv: "UPSTREAM_KEY" },
        },
      },
      modelGateway: { budget: { daily: 2, monthly: 20 } },
    },
    env: { UPSTREAM_KEY: REAL_KEY },
  });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await model?.close();
});

const admin = () => ({
  authorization: `Bearer ${server.secrets.admin}`,
  "content-type": "application/json",
});

async function overview(): Promise<{ status: string; sandboxId: string | null }> {
  const res = await fetch(`${server.url}/api/sandbox`, { headers: admin() });
  const j = (await res.json()) as { instance: { status: string; sandboxId?: string | null } };
  return { status: j.instance.status, sandboxId: j.instance.sandboxId ?? null };
}

function gateway(path: string, credential: string, body: unknown) {
  return fetch(`${server.url}/api/model/v1${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${credential}` },
    body: JSON.stringify(body),
  });
}

const chat = {
  model: "gpt-4o-mini",
  max_tokens: 50,
  messages: [{ role: "user", content: "hello" }],
};

describe("model gateway over HTTP", () => {
  it("refuses any credential while no sandbox runs, forwarding nothing", async () => {
    const res = await gateway(
      "/chat/completions",
      modelCredential(server.secrets.clawrun, { sandboxId: "sb-x", bootId: newBootId() }),
      chat,
    );
    expect(res.status).toBe(401);
    expect(model.requests.length).toBe(0);
  });

  it("lets the agent's daemon call its model through the gateway, without the real key", async () => {
    const send = () =>
      fetch(`${server.url}/api/sandbox/test-message`, {
        method: "POST",
        headers: { ...admin(), origin: server.url },
        body: JSON.stringify({ text: "what is the gateway?" }),
      });
    // The message wakes the agent, which asks its model through the gateway.
    expect([200, 202]).toContain((await send()).status);
    const asked = await waitFor(
      "the agent's model call",
      async () => model.chatRequests()[0],
      90_000,
    );
    const content = JSON.stringify(asked.messages);
    expect(content).toContain("what is the gateway?");
    expect(content).toContain("leaked=false");
    expect(model.requests.at(-1)?.headers.authorization).toBe(`Bearer ${REAL_KEY}`);
    // Until the agent has answered, its delivery is open: calls meanwhile are that chat's.
    await waitFor(
      "the message to be delivered",
      async () => {
        const r = await fetch(`${server.url}/api/sandbox/inbox`, { headers: admin() });
        const j = (await r.json()) as { counts: { pending: number } };
        return j.counts.pending === 0 ? true : null;
      },
      60_000,
    );
  }, 120_000);

  it("bills calls of the running sandbox's credential; another sandbox's or boot's is refused", async () => {
    const { status, sandboxId } = await overview();
    expect(status).toBe("running");
    if (!sandboxId) throw new Error("no sandbox id");
    const current = await currentModelCredential(server);
    if (!current) throw new Error("no credential");
    const ok = await gateway("/chat/completions", current, chat);
    expect(ok.status).toBe(200);
    const streamed = await gateway("/chat/completions", current, { ...chat, stream: true });
    expect(streamed.headers.get("content-type")).toContain("text/event-stream");
    expect(await streamed.text()).toContain("[DONE]");
    const bootId = current.split(".")[1] ?? "";
    const other = await gateway(
      "/chat/completions",
      modelCredential(server.secrets.clawrun, { sandboxId: `${sandboxId}x`, bootId }),
      chat,
    );
    expect(other.status).toBe(401);
    // The same sandbox id with another boot: a credential from an earlier (or later) wake.
    const otherBoot = await gateway(
      "/chat/completions",
      modelCredential(server.secrets.clawrun, { sandboxId, bootId: newBootId() }),
      chat,
    );
    expect(otherBoot.status).toBe(401);
    const models = await fetch(`${server.url}/api/model/v1/models`, {
      headers: { authorization: `Bearer ${current}` },
    });
    expect(((await models.json()) as { data: { id: string }[] }).data[0]?.id).toBe("gpt-4o-mini");
  });

  it("answers bad JSON with a 400 and forwards nothing", async () => {
    const before = model.requests.length;
    const res = await fetch(`${server.url}/api/model/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${await currentModelCredential(server)}` },
      body: "{not json",
    });
    expect(res.status).toBe(400);
    expect(model.requests.length).toBe(before);
  });

  it("shows the spend to the operator and lets them raise today's cap; a bad raise is a 400", async () => {
    const res = await fetch(`${server.url}/api/sandbox/usage`, { headers: admin() });
    expect(res.status).toBe(200);
    const usage = (await res.json()) as {
      today: {
        spentUsd: number;
        capUsd: number;
        models: { model: string; calls: number }[];
        conversations: { channel: string | null; conversation: string | null; calls: number }[];
      };
      month: { capUsd: number; conversations: unknown[] };
    };
    expect(usage.today.capUsd).toBe(2);
    expect(usage.month.capUsd).toBe(20);
    expect(usage.today.spentUsd).toBeGreaterThan(0);
    // The daemon's call and this file's two direct calls.
    expect(usage.today.models).toEqual([
      expect.objectContaining({ model: "gpt-4o-mini", calls: 3 }),
    ]);
    // The daemon's call was made while its message was delivered: that conversation's. This
    // file's two direct calls came with no delivery open: unattributed.
    const byConversation = usage.today.conversations;
    expect(byConversation).toHaveLength(2);
    expect(byConversation.find((c) => c.conversation === null)?.calls).toBe(2);
    expect(byConversation.find((c) => c.conversation !== null)).toMatchObject({
      channel: expect.any(String),
      calls: 1,
    });
    expect(usage.month.conversations).toHaveLength(2);
    // The dashboard's cost card gets the same, in words.
    const cost = await fetch(`${server.url}/api/sandbox/cost`, { headers: admin() });
    const card = ((await cost.json()) as { model: { today: string; byConversation: unknown[] } })
      .model;
    expect(card.today).toMatch(/^\$0\.\d{2,4} of \$2\.00 \(0 %\)$/);
    expect(card.byConversation).toHaveLength(2);

    const raise = (body: string) =>
      fetch(`${server.url}/api/sandbox/usage/raise`, {
        method: "POST",
        headers: { ...admin(), origin: server.url },
        body,
      });
    expect((await raise('{"usd":-1}')).status).toBe(400);
    expect((await raise("nope")).status).toBe(400);
    const raised = await raise('{"usd":3}');
    expect(raised.status).toBe(200);
    expect(((await raised.json()) as { today: { capUsd: number } }).today.capUsd).toBe(5);
  });

  it("refuses a sandbox's credential once it sleeps, and issues a new one at the next wake", async () => {
    const before = await currentModelCredential(server);
    if (!before) throw new Error("no credential");
    const post = (path: string) =>
      fetch(`${server.url}/api/sandbox/${path}`, {
        method: "POST",
        headers: { ...admin(), origin: server.url },
        body: "{}",
      });
    expect((await post("stop")).status).toBe(202);
    await waitFor(
      "the agent to sleep",
      async () => (await overview()).status === "sleeping",
      60_000,
    );
    const forwarded = model.requests.length;
    expect((await gateway("/chat/completions", before, chat)).status).toBe(401);
    expect(model.requests.length).toBe(forwarded);

    expect((await post("start")).status).toBe(202);
    await waitFor("the agent to wake", async () => (await overview()).status === "running", 90_000);
    const after = await currentModelCredential(server);
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
    expect((await gateway("/chat/completions", before, chat)).status).toBe(401);
    expect((await gateway("/chat/completions", after ?? "", chat)).status).toBe(200);
  }, 180_000);
});
