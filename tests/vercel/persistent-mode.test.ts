import pino from "pino";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  type ManagedSandbox,
  ProviderError,
  SandboxNotFoundError,
  type SandboxProvider,
  UnsupportedNetworkPolicyError,
} from "../../src/server/providers/types";
import { vercelConfigSchema, vercelEnvSchema } from "../../src/server/providers/vercel/config";
import { VercelProvider } from "../../src/server/providers/vercel/vercel-provider";
import { startVercelSandboxEmulator } from "../support/vercel-sandbox-emulator";

/**
 * Persistent mode (docs/vercel-sandbox.md) through the SDK and the emulator: one named sandbox per
 * instance, stop() saves its files, resume() brings the same sandbox back by name, and
 * nothing ever creates an empty sandbox where the named one or its saved state is gone.
 */

const emulator = await startVercelSandboxEmulator();
afterAll(() => emulator.close());
const env = vercelEnvSchema.parse(emulator.env);
const MIN = 60_000;

function provider(instance: string, config: Record<string, unknown> = {}) {
  return new VercelProvider({
    config: vercelConfigSchema.parse({ mode: "persistent", ...config }),
    env,
    instance,
    logger: pino({ level: "silent" }),
  });
}

function resume(p: SandboxProvider, id: string, timeoutMs = MIN): Promise<ManagedSandbox> {
  if (!p.resume) throw new Error("persistent mode must offer resume()");
  return p.resume(id, { timeoutMs });
}

const creates = () =>
  emulator.requests.filter((r) => r.method === "POST" && /^\/v[23]\/sandboxes$/.test(r.path))
    .length;
const running: ManagedSandbox[] = [];
afterEach(async () => {
  await Promise.allSettled(running.splice(0).map((s) => s.stop()));
});

describe("vercel provider, persistent mode", () => {
  it("declares itself resumable and makes the instance's one named sandbox", async () => {
    const p = provider("keep");
    expect(p.capabilities).toMatchObject({
      resumable: true,
      ownsRetention: true,
      restoreAnySnapshot: false,
    });
    const s = await p.create({ timeoutMs: MIN, ports: [3000, 3001], labels: { instance: "keep" } });
    running.push(s);
    expect(s.id).toBe("clawrun-keep");
    const record = emulator.service.sandbox("clawrun-keep");
    expect(record).toMatchObject({ persistent: true, keepLastSnapshots: { count: 3 } });
    expect(record.tags).toEqual({ instance: "keep", "clawrun-instance": "keep" });
  });

  it("keeps files across stop and resume, resuming by name with an explicit resume flag", async () => {
    const p = provider("files");
    const s = await p.create({ timeoutMs: MIN, ports: [3000] });
    await s.writeFiles([{ path: "memory/notes.md", content: "remember me" }]);
    await s.stop();
    expect(s.status).toBe("stopped");

    // Looking at a stopped sandbox never starts it.
    const seen = await p.get(s.id);
    expect(seen.status).toBe("stopped");
    expect(emulator.requests.at(-1)?.query).toContain("resume=false");

    const sessionsBefore = emulator.service.sessions.size;
    const back = await resume(p, s.id);
    running.push(back);
    expect(emulator.requests.at(-1)).toMatchObject({
      method: "GET",
      path: `/v2/sandboxes/${s.id}`,
    });
    expect(emulator.requests.at(-1)?.query).toContain("resume=true");
    expect(emulator.service.sessions.size).toBe(sessionsBefore + 1);
    expect(back.id).toBe(s.id);
    expect(back.status).toBe("running");
    expect((await back.readFile("memory/notes.md"))?.toString()).toBe("remember me");
    // The saved state is one of the snapshots the provider lists (Vercel keeps them).
    const snapshots = await p.listSnapshots();
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]).toMatchObject({ sourceSandboxId: s.id, expiresAt: expect.any(Number) });
    expect(snapshots[0]?.sizeBytes).toBeGreaterThan(0);
  });

  it("resume of a deleted sandbox is SandboxNotFoundError and creates nothing", async () => {
    const p = provider("gone");
    const s = await p.create({ timeoutMs: MIN, ports: [3000] });
    await s.stop();
    await emulator.service.deleteSandbox(s.id, false);
    const before = creates();
    await expect(resume(p, s.id)).rejects.toBeInstanceOf(SandboxNotFoundError);
    expect(creates()).toBe(before);
    expect(emulator.service.sandboxes.has(s.id)).toBe(false);
    expect((await p.list()).map((x) => x.id)).not.toContain(s.id);
  });

  it("resume when the saved state is gone is SandboxNotFoundError, not an empty sandbox", async () => {
    const p = provider("expired");
    const s = await p.create({ timeoutMs: MIN, ports: [3000] });
    await s.writeFiles([{ path: "state.txt", content: "precious" }]);
    await s.stop();
    const saved = emulator.service.sandbox(s.id).currentSnapshotId as string;
    await emulator.service.dropSnapshot(saved); // as if it expired
    const before = creates();
    const sessions = emulator.service.sessions.size;
    await expect(resume(p, s.id)).rejects.toThrow(
      `sandbox "${s.id}" cannot be resumed: the snapshot holding its files is gone`,
    );
    await expect(resume(p, s.id)).rejects.toBeInstanceOf(SandboxNotFoundError);
    expect([creates(), emulator.service.sessions.size]).toEqual([before, sessions]);
  });

  it("create is 'start fresh': the named sandbox is replaced and its files are gone", async () => {
    const p = provider("fresh");
    const first = await p.create({ timeoutMs: MIN, ports: [3000] });
    await first.writeFiles([{ path: "old.txt", content: "old" }]);
    const second = await p.create({ timeoutMs: MIN, ports: [3000] });
    running.push(second);
    expect(second.id).toBe(first.id);
    expect(await second.readFile("old.txt")).toBeNull();
    expect(
      emulator.requests.some(
        (r) => r.method === "DELETE" && r.path === `/v2/sandboxes/${first.id}`,
      ),
    ).toBe(true);
  });

  it("refuses a bad start-fresh request before it discards anything", async () => {
    const p = provider("careful");
    const s = await p.create({ timeoutMs: MIN, ports: [] });
    running.push(s);
    await s.writeFiles([{ path: "keep.txt", content: "still here" }]);
    const deletes = () => emulator.requests.filter((r) => r.method === "DELETE").length;
    const before = deletes();
    await expect(
      p.create({ timeoutMs: MIN, ports: [], networkPolicy: { allow: ["https://not-a-host"] } }),
    ).rejects.toBeInstanceOf(UnsupportedNetworkPolicyError);
    await expect(p.create({ timeoutMs: 0, ports: [] })).rejects.toBeInstanceOf(ProviderError);
    expect(deletes()).toBe(before);
    expect((await s.readFile("keep.txt"))?.toString()).toBe("still here");
  });

  it("refuses to replace a same-named sandbox that is not this instance's", async () => {
    const foreign = await emulator.service.createSandbox(
      { projectId: emulator.credentials.projectId, name: "clawrun-theirs", tags: {} },
      { mode: "allow-all" },
    );
    const before = creates();
    await expect(provider("theirs").create({ timeoutMs: MIN, ports: [] })).rejects.toThrow(
      'a sandbox named "clawrun-theirs" exists but is not tagged clawrun-instance=theirs; refusing to replace it',
    );
    expect(creates()).toBe(before);
    expect(emulator.service.sandboxes.get("clawrun-theirs")?.currentSessionId).toBe(
      foreign.session.id,
    );
    await emulator.service.stopSession(foreign.session.id);
  });

  it("lets Vercel keep the last snapshots (keepLastSnapshots)", async () => {
    const p = provider("retain", { keepLastSnapshots: 2 });
    let s: ManagedSandbox = await p.create({ timeoutMs: MIN, ports: [] });
    const saved: string[] = [];
    for (let round = 0; round < 3; round++) {
      await s.writeFiles([{ path: "round.txt", content: String(round) }]);
      await s.stop();
      saved.push(emulator.service.sandbox(s.id).currentSnapshotId as string);
      s = await resume(p, s.id);
      expect((await s.readFile("round.txt"))?.toString()).toBe(String(round));
    }
    running.push(s);
    expect((await p.listSnapshots()).map((x) => x.id)).toEqual([saved[2], saved[1]]);
  });

  it("tops a resumed session's timeout up to what the wake asks, never past the plan's cap", async () => {
    const p = provider("ttl", { maxTimeoutMinutes: 3 });
    const s = await p.create({ timeoutMs: MIN, ports: [] });
    await s.stop();
    const longer = await resume(p, s.id, 2 * MIN);
    expect(longer.timeout).toBe(2 * MIN);
    await longer.stop();
    const capped = await resume(p, s.id, 60 * MIN);
    running.push(capped);
    expect(capped.timeout).toBe(3 * MIN);
    await expect(capped.extendTimeout(MIN)).rejects.toBeInstanceOf(ProviderError);
  });

  it("snapshot mode has no resume", () => {
    const p = new VercelProvider({
      config: vercelConfigSchema.parse({}),
      env,
      instance: "x",
      logger: pino({ level: "silent" }),
    });
    expect(p.resume).toBeUndefined();
    expect(p.capabilities.resumable).toBe(false);
  });

  it("sent only requests the emulator knows", () => {
    expect(emulator.unknownRequests).toEqual([]);
    expect(emulator.faults).toEqual([]);
  });
});
