import pino from "pino";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  type ManagedSandbox,
  ProviderError,
  SandboxNotFoundError,
  SnapshotNotFoundError,
  UnsupportedNetworkPolicyError,
} from "../../src/server/providers/types";
import { vercelConfigSchema, vercelEnvSchema } from "../../src/server/providers/vercel/config";
import { VercelProvider } from "../../src/server/providers/vercel/vercel-provider";
import { waitFor } from "../support/free-port";
import { startVercelSandboxEmulator } from "../support/vercel-sandbox-emulator";

/**
 * What the vercel provider adds to the contract, through the SDK and the emulator: what it
 * asks Vercel for (policies, timeouts, runtime, resources, tags), the plan's cap, scoping to
 * its instance, pruning, usage, aborts.
 */

const MIN = 60_000;
// The emulated plan allows 10 minutes, so the provider's own cap can be set above it.
const emulator = await startVercelSandboxEmulator({ maxTimeoutMs: 10 * MIN });
afterAll(() => emulator.close());
const env = vercelEnvSchema.parse(emulator.env);

function provider(instance: string, config: Record<string, unknown> = {}) {
  return new VercelProvider({
    config: vercelConfigSchema.parse(config),
    env,
    instance,
    logger: pino({ level: "silent" }),
  });
}
const made: ManagedSandbox[] = [];
afterEach(async () => {
  await Promise.allSettled(made.splice(0).map((s) => s.stop()));
});
async function create(
  p: VercelProvider,
  opts: Partial<Parameters<VercelProvider["create"]>[0]> = {},
) {
  const s = await p.create({ timeoutMs: MIN, ports: [3000], ...opts });
  made.push(s);
  return s;
}
const session = (s: ManagedSandbox) =>
  emulator.service.session(emulator.service.sandbox(s.id).currentSessionId);
const requestsTo = (pattern: RegExp) =>
  emulator.requests.filter((r) => pattern.test(r.path)).length;

describe("vercel provider, snapshot mode", () => {
  it("asks for a non-persistent sandbox with the configured image, region and resources", async () => {
    const plain = await create(provider("ask"), { resources: { vcpus: 4 } });
    expect(emulator.requests.filter((r) => r.method === "POST").at(-1)?.path).toBe("/v3/sandboxes");
    expect(emulator.service.sandbox(plain.id)).toMatchObject({
      persistent: false,
      vcpus: 4,
      region: "iad1",
    });

    const pinned = await create(provider("ask", { runtime: "node24", region: "fra1" }));
    // The SDK sends a runtime to the v2 endpoint, anything else to v3.
    expect(emulator.requests.filter((r) => r.method === "POST").at(-1)?.path).toBe("/v2/sandboxes");
    expect(emulator.service.sandbox(pinned.id)).toMatchObject({
      runtime: "node24",
      region: "fra1",
    });
  });

  it("applies network policies at create and later, in the API's form", async () => {
    const p = provider("policy");
    const denied = await create(p, { networkPolicy: "deny-all" });
    expect(session(denied).networkPolicy).toEqual({ mode: "deny-all" });
    const listed = await create(p, { networkPolicy: { allow: ["api.openai.com", "*.npmjs.org"] } });
    expect(session(listed).networkPolicy).toEqual({
      mode: "custom",
      allowedDomains: ["api.openai.com", "*.npmjs.org"],
    });
    await listed.updateNetworkPolicy("allow-all");
    expect(session(listed).networkPolicy).toEqual({ mode: "allow-all" });
    await listed.updateNetworkPolicy({ allow: ["example.com"] });
    expect(session(listed).networkPolicy).toEqual({
      mode: "custom",
      allowedDomains: ["example.com"],
    });
  });

  it("refuses an allow-list entry the firewall cannot take before anything is made", async () => {
    const before = requestsTo(/^\/v[23]\/sandboxes$/);
    await expect(
      provider("policy").create({
        timeoutMs: MIN,
        ports: [],
        networkPolicy: { allow: ["https://x.io"] },
      }),
    ).rejects.toBeInstanceOf(UnsupportedNetworkPolicyError);
    expect(requestsTo(/^\/v[23]\/sandboxes$/)).toBe(before);
  });

  it("caps the timeout at the plan's maximum and refuses extensions past it", async () => {
    const p = provider("cap", { maxTimeoutMinutes: 5 });
    const s = await create(p, { timeoutMs: 50 * MIN });
    expect([s.timeout, session(s).timeout]).toEqual([5 * MIN, 5 * MIN]);
    const extends_ = requestsTo(/extend-timeout$/);
    await expect(s.extendTimeout(MIN)).rejects.toBeInstanceOf(ProviderError);
    await expect(s.extendTimeout(MIN)).rejects.toThrow(
      /past the plan's cap of 300000 ms \(sandbox.vercel.maxTimeoutMinutes\)/,
    );
    expect(requestsTo(/extend-timeout$/)).toBe(extends_); // refused here, never sent

    const q = provider("cap", { maxTimeoutMinutes: 5 });
    const t = await create(q, { timeoutMs: 2 * MIN });
    await t.extendTimeout(3 * MIN);
    expect([t.timeout, session(t).timeout]).toEqual([5 * MIN, 5 * MIN]);
  });

  it("reports the API's own refusal when the plan's real cap is lower than configured", async () => {
    const p = provider("pro", { maxTimeoutMinutes: 300 }); // the emulated plan allows 10 minutes
    await expect(p.create({ timeoutMs: 60 * MIN, ports: [] })).rejects.toThrow(
      "Vercel Sandbox API refused to create a sandbox: timeout 3600000 ms exceeds the plan's maximum of 600000 ms (HTTP 400, bad_request)",
    );
  });

  it("sees only its own instance's sandboxes and snapshots", async () => {
    const a = provider("alpha");
    const b = provider("beta");
    const mine = await create(a, { labels: { instance: "alpha" } });
    const theirs = await create(b);
    await theirs.writeFiles([{ path: "f", content: "beta's" }]);
    const theirSnapshot = await theirs.snapshot();

    expect((await a.list()).map((s) => s.id)).toEqual([mine.id]);
    expect((await a.list())[0]?.labels).toEqual({ instance: "alpha" });
    await expect(a.get(theirs.id)).rejects.toBeInstanceOf(SandboxNotFoundError);
    expect((await a.listSnapshots()).map((s) => s.id)).not.toContain(theirSnapshot.id);
    await expect(a.deleteSnapshot(theirSnapshot.id)).rejects.toBeInstanceOf(SnapshotNotFoundError);
    expect((await b.listSnapshots()).map((s) => s.id)).toContain(theirSnapshot.id);
  });

  it("refuses more labels than Vercel's tags can carry", async () => {
    const labels = { a: "1", b: "2", c: "3", d: "4", e: "5" };
    await expect(provider("tags").create({ timeoutMs: MIN, ports: [], labels })).rejects.toThrow(
      "a Vercel sandbox carries at most 5 tags and ClawRun uses one: at most 4 labels, got 5",
    );
  });

  it("deletes stopped sandboxes without snapshots beyond keepStopped, in the background", async () => {
    const p = provider("prune", { keepStopped: 1 });
    const kept = await create(p);
    await kept.writeFiles([{ path: "f", content: "x" }]);
    await kept.snapshot(); // stopped, but it has a snapshot: stays
    const old = await create(p);
    await old.stop();
    const newer = await create(p);
    await newer.stop();
    const current = await create(p); // this create prunes
    const ids = async () => (await p.list()).map((s) => s.id).sort();
    await waitFor(
      "the older stopped sandbox to be pruned",
      async () => !(await ids()).includes(old.id) || undefined,
    );
    expect(await ids()).toEqual([kept.id, newer.id, current.id].sort());
  });

  it("reports usage as the API gives it", async () => {
    const p = provider("usage");
    const s = await create(p);
    await new Promise((r) => setTimeout(r, 200));
    await s.stop();
    const usage = (await p.get(s.id)).usage;
    expect(usage?.wallMs).toBeGreaterThanOrEqual(200);
    // The emulator does not measure CPU time or traffic; Vercel does.
    expect(usage).toMatchObject({ activeCpuMs: null, ingressBytes: null, egressBytes: null });
  });

  it("passes the caller's AbortSignal to the SDK", async () => {
    const before = emulator.requests.length;
    const aborted = AbortSignal.abort(new DOMException("the route gave up", "AbortError"));
    await expect(
      provider("abort").create({ timeoutMs: MIN, ports: [], signal: aborted }),
    ).rejects.toMatchObject({ name: "AbortError" });
    await expect(provider("abort").list(aborted)).rejects.toMatchObject({ name: "AbortError" });
    expect(emulator.requests.length).toBe(before);
  });

  it("proves its credentials with check()", async () => {
    await provider("check").check();
  });

  it("sent only requests the emulator knows", () => {
    expect(emulator.unknownRequests).toEqual([]);
    expect(emulator.faults).toEqual([]);
  });
});
