import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { deliverOverHttp } from "../../src/server/agents/http-delivery";
import type { Agent, DaemonTransport, SleepPrepareAnswer } from "../../src/server/agents/types";
import type { ManagedSandbox, SandboxProvider } from "../../src/server/providers/types";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

/**
 * Issue 23, item 3, through the real lifecycle, sidecar and door: a daemon that speaks the
 * shapes of OpenClaw's suspend protocol (gateway.suspend.prepare answers `busy` with
 * `retryAfterMs` and blockers, then `ready` with a suspensionId and a lease; resume answers
 * `{ ok, status: "running", resumed }`) over a small JSON RPC endpoint. It answers busy to the
 * first `prepare`, so the first sleep keeps it running and the second snapshots; the wake
 * resumes it. Every call is logged in a file of its root (kept by the snapshot).
 */

let h: LifecycleHarness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});

const script = `
const http = require("http"), fs = require("fs"), path = require("path");
const calls = path.join(process.env.HOME || process.cwd(), "suspend-calls.log");
const log = (m) => fs.appendFileSync(calls, m + "\\n");
const count = (m) => (fs.existsSync(calls) ? fs.readFileSync(calls, "utf8").split("\\n").filter((l) => l === m).length : 0);
http.createServer((q, s) => {
  let b = ""; q.on("data", (c) => (b += c)); q.on("end", () => {
    s.setHeader("content-type", "application/json");
    if (q.url !== "/rpc") { s.end(JSON.stringify({ reply: "ok" })); return; }
    const { method, params } = JSON.parse(b);
    const first = count(method) === 0;
    log(method + (params && params.suspensionId ? " " + params.suspensionId : ""));
    if (method === "gateway.suspend.prepare")
      s.end(JSON.stringify(first
        ? { ok: true, status: "busy", retryAfterMs: 20000, blockers: ["turn in progress"] }
        : { ok: true, status: "ready", suspensionId: "s-1", leaseMs: 120000 }));
    else if (method === "gateway.suspend.resume")
      s.end(JSON.stringify({ ok: true, status: "running", resumed: true }));
    else s.end(JSON.stringify({ ok: false }));
  });
}).listen(process.env.PORT);`;

async function rpc(
  door: DaemonTransport,
  method: string,
  signal: AbortSignal,
  params: Record<string, unknown> = {},
) {
  const res = await door.fetch("/rpc", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ method, params }),
    signal,
  });
  return (await res.json()) as Record<string, unknown>;
}

const suspendAgent: Agent = {
  name: "suspend-test",
  deliveryTimeoutMs: 10_000,
  files: async () => [],
  daemon: () => ({ command: "node", args: ["-e", script], env: {}, port: 3000 }),
  deliver: (door, message, signal) => deliverOverHttp(door, "/message", message, "json", signal),
  async prepareSleep(door, signal): Promise<SleepPrepareAnswer> {
    const a = await rpc(door, "gateway.suspend.prepare", signal, { requestId: "r-1" });
    return a.status === "ready"
      ? { ready: true, leaseMs: Number(a.leaseMs), suspensionId: String(a.suspensionId) }
      : { ready: false, retryAfterMs: Number(a.retryAfterMs) };
  },
  async resumeAfterWake(door, signal, suspensionId) {
    await rpc(door, "gateway.suspend.resume", signal, suspensionId ? { suspensionId } : {});
  },
};

it("sleeps only when the agent agrees (busy keeps it running), and resumes it on the wake", async () => {
  h = await lifecycleHarness({ agent: suspendAgent });
  const harness = h;
  expect((await harness.manager.wake({ reason: "test", trigger: "operator" })).status).toBe(
    "running",
  );
  const sandboxId = (await harness.status()).sandboxId as string;
  const root = (await harness.provider.get(sandboxId)).root;
  const calls = (dir: string) => {
    const f = join(dir, "suspend-calls.log");
    return existsSync(f) ? readFileSync(f, "utf8").split("\n").filter(Boolean) : [];
  };

  // The wake already resumed it (a restored agent may still be suspended).
  expect(calls(root)).toEqual(["gateway.suspend.resume"]);

  const busy = await harness.manager.sleep("test");
  expect(busy.status).not.toBe("sleeping");
  expect((await harness.status()).status).toBe("running");

  expect(calls(root)).toEqual(["gateway.suspend.resume", "gateway.suspend.prepare"]);

  expect((await harness.manager.sleep("test")).status).toBe("sleeping");
  // The agent's word is kept with the sleep.
  expect((await harness.events("status.snapshotting"))[0]?.details).toMatchObject({
    consent: "the agent agreed to sleep",
  });

  expect((await harness.manager.wake({ reason: "test", trigger: "operator" })).status).toBe(
    "running",
  );
  const woken = (await harness.provider.get((await harness.status()).sandboxId as string)).root;
  // The snapshot holds the log: asked twice before it was taken, resumed after each wake.
  expect(calls(woken)).toEqual([
    "gateway.suspend.resume",
    "gateway.suspend.prepare",
    "gateway.suspend.prepare",
    "gateway.suspend.resume",
  ]);
}, 90_000);

/** Sandboxes whose snapshots fail while `failing.on` (the local provider otherwise). */
function failingSnapshots(failing: { on: boolean }): (p: SandboxProvider) => SandboxProvider {
  const wrap = (s: ManagedSandbox): ManagedSandbox =>
    new Proxy(s, {
      get(target, prop, receiver) {
        if (prop === "snapshot" && failing.on)
          return async () => {
            throw new Error("snapshot refused by the test");
          };
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return (p) =>
    new Proxy(p, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop === "create" || prop === "get")
          return async (...args: unknown[]) =>
            wrap(await (value as (...a: unknown[]) => Promise<ManagedSandbox>).apply(target, args));
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
}

it("a snapshot that fails after the agent agreed resumes it with its suspensionId", async () => {
  const failing = { on: true };
  h = await lifecycleHarness({
    agent: suspendAgent,
    wrapProvider: failingSnapshots(failing),
    timings: { snapshotRetryDelayMs: 10 },
  });
  const harness = h;
  expect((await harness.manager.wake({ reason: "test", trigger: "operator" })).status).toBe(
    "running",
  );
  const root = (await harness.provider.get((await harness.status()).sandboxId as string)).root;
  const calls = () =>
    readFileSync(join(root, "suspend-calls.log"), "utf8").split("\n").filter(Boolean);
  expect((await harness.manager.sleep("test")).status).not.toBe("sleeping"); // busy
  expect((await harness.manager.sleep("test")).status).not.toBe("sleeping"); // ready, snapshot fails
  expect((await harness.status()).status).toBe("running");
  expect(calls()).toEqual([
    "gateway.suspend.resume",
    "gateway.suspend.prepare",
    "gateway.suspend.prepare",
    "gateway.suspend.resume s-1",
  ]);
}, 90_000);

/** A daemon that is always busy and writes nothing: only the door could count its calls. */
const alwaysBusy = `
require("http").createServer((q, s) => {
  q.resume(); q.on("end", () => {
    s.setHeader("content-type", "application/json");
    s.end(JSON.stringify({ status: "busy", retryAfterMs: 20000 }));
  });
}).listen(process.env.PORT);`;

it("asking the agent to sleep is not its activity: the idle clock does not move", async () => {
  const agent: Agent = {
    ...suspendAgent,
    daemon: () => ({ command: "node", args: ["-e", alwaysBusy], env: {}, port: 3000 }),
  };
  h = await lifecycleHarness({ agent });
  const harness = h;
  expect((await harness.manager.wake({ reason: "test", trigger: "operator" })).status).toBe(
    "running",
  );
  const sandboxId = (await harness.status()).sandboxId as string;
  const lastChanged = async () => (await harness.store.heartbeats.get(sandboxId))?.lastChangedAt;
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await pause(1_000); // a few heartbeats (300 ms apart) after the start settled
  const before = await lastChanged();
  expect(before).toEqual(expect.any(Number));
  for (let i = 0; i < 3; i++)
    expect((await harness.manager.sleep("test")).status).not.toBe("sleeping");
  await pause(1_000);
  expect(await lastChanged()).toBe(before);
}, 90_000);
