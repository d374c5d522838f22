import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { deliverOverHttp } from "../../src/server/agents/http-delivery";
import type { Agent, DaemonTransport, SleepPrepareAnswer } from "../../src/server/agents/types";
import type { ManagedSandbox, SandboxProvider } from "../../src/server/providers/types";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

/**
 * Issue 23, item 3: ClawRun dies after the agent granted a suspension and before the snapshot.
 * The stand-in daemon holds its suspension in memory like OpenClaw's gateway: while one is
 * held, another `prepare` is "busy" (another suspension is already prepared) until it is
 * resumed with its id. Its calls go to a file outside the sandbox.
 */

let h: LifecycleHarness | null = null;
let dir: string | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

const script = `
const http = require("http"), fs = require("fs");
const log = (m) => fs.appendFileSync(process.env.CALLS, m + "\\n");
let held = null, n = 0;
http.createServer((q, s) => {
  let b = ""; q.on("data", (c) => (b += c)); q.on("end", () => {
    s.setHeader("content-type", "application/json");
    if (q.url !== "/rpc") { s.end(JSON.stringify({ reply: "ok" })); return; }
    const { method, params } = JSON.parse(b);
    if (method === "gateway.suspend.prepare") {
      if (held) { log("prepare busy"); s.end(JSON.stringify({ status: "busy", retryAfterMs: 120000 })); return; }
      held = "s-" + ++n; log("prepare ready " + held);
      s.end(JSON.stringify({ status: "ready", suspensionId: held, leaseMs: 120000 }));
    } else if (method === "gateway.suspend.resume") {
      const id = params && params.suspensionId;
      log("resume " + (id || "-"));
      if (id && id === held) held = null;
      s.end(JSON.stringify({ ok: true, resumed: true }));
    } else s.end(JSON.stringify({ ok: false }));
  });
}).listen(process.env.PORT);`;

async function rpc(door: DaemonTransport, method: string, signal: AbortSignal, params = {}) {
  const res = await door.fetch("/rpc", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ method, params }),
    signal,
  });
  return (await res.json()) as Record<string, unknown>;
}

function agentLogging(calls: string): Agent {
  return {
    name: "stale-suspension-test",
    deliveryTimeoutMs: 10_000,
    files: async () => [],
    daemon: () => ({ command: "node", args: ["-e", script], env: { CALLS: calls }, port: 3000 }),
    deliver: (door, message, signal) => deliverOverHttp(door, "/message", message, "json", signal),
    async prepareSleep(door, signal): Promise<SleepPrepareAnswer> {
      const a = await rpc(door, "gateway.suspend.prepare", signal);
      return a.status === "ready"
        ? { ready: true, leaseMs: Number(a.leaseMs), suspensionId: String(a.suspensionId) }
        : { ready: false, retryAfterMs: Number(a.retryAfterMs) };
    },
    async resumeAfterWake(door, signal, suspensionId) {
      await rpc(door, "gateway.suspend.resume", signal, suspensionId ? { suspensionId } : {});
    },
  };
}

/** A provider whose get() fails once when armed: the server "dies" right after the consent. */
function dyingAfterConsent(armed: { gets: number }): (p: SandboxProvider) => SandboxProvider {
  return (p) =>
    new Proxy(p, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop === "get")
          return async (...args: unknown[]) => {
            // The sleep's first get asks for consent; the second (after it) is where we die.
            if (armed.gets > 0 && --armed.gets === 0) throw new Error("server died here");
            return (value as (...a: unknown[]) => Promise<ManagedSandbox>).apply(target, args);
          };
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
}

it("a suspension granted before a server died is resumed with its id by the next tick", async () => {
  dir = mkdtempSync(join(tmpdir(), "clawrun-stale-suspension-"));
  const calls = join(dir, "calls.log");
  const lines = () => readFileSync(calls, "utf8").split("\n").filter(Boolean);
  const armed = { gets: 0 };
  h = await lifecycleHarness({
    agent: agentLogging(calls),
    wrapProvider: dyingAfterConsent(armed),
  });
  expect((await h.manager.wake({ reason: "test", trigger: "operator" })).status).toBe("running");
  armed.gets = 2;
  await expect(h.manager.sleep("test")).rejects.toThrow("server died here");
  // The agent is suspended and ClawRun wrote down which suspension, as it began the sleep.
  expect(await h.status()).toMatchObject({
    status: "snapshotting",
    suspension: { id: "s-1" },
  });

  // Another server's tick repairs the interrupted sleep: the stale suspension is resumed with
  // its id first, so the agent agrees again and the sleep completes.
  const other = await h.newManager();
  await other.tick();
  expect(lines()).toEqual(["resume -", "prepare ready s-1", "resume s-1", "prepare ready s-2"]);
  const after = await h.status();
  expect(after.status).toBe("sleeping");
  expect(after.suspension).toBeNull();
  expect((await h.events("agent.suspension-resumed"))[0]).toMatchObject({
    level: "warn",
    details: { suspensionId: "s-1" },
  });
}, 90_000);

it("a message to a running agent still holding a stale suspension resumes it before the delivery", async () => {
  dir = mkdtempSync(join(tmpdir(), "clawrun-stale-suspension-"));
  const calls = join(dir, "calls.log");
  const lines = () => readFileSync(calls, "utf8").split("\n").filter(Boolean);
  const armed = { gets: 0 };
  h = await lifecycleHarness({
    agent: agentLogging(calls),
    wrapProvider: dyingAfterConsent(armed),
  });
  const harness = h;
  expect((await harness.manager.wake({ reason: "test", trigger: "operator" })).status).toBe(
    "running",
  );
  armed.gets = 2;
  await expect(harness.manager.sleep("test")).rejects.toThrow("server died here");
  // As a repair that kept the sandbox running would leave it: running, the suspension recorded.
  const cur = await harness.store.state.get();
  if (!cur) throw new Error("no state");
  const cas = await harness.store.state.compareAndSet(cur.version, {
    ...cur.value,
    status: "running",
  });
  expect(cas.ok).toBe(true);

  await harness.store.inbox.enqueue({
    id: "after-stale-suspension",
    channel: "generic",
    conversation: "c",
    text: "hello",
    receivedAt: Date.now(),
    meta: {},
  });
  const other = await harness.newManager();
  const out = await other.wakeAndDeliver({ reason: "test message", trigger: "message" });
  expect(out.wake.status).toBe("already-running");
  expect(out.drain?.delivered).toBe(1);
  expect(lines()).toEqual(["resume -", "prepare ready s-1", "resume s-1"]);
  expect((await harness.status()).suspension).toBeNull();
}, 90_000);
