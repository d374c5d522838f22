import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import type { LayerRecipe } from "../layers/types";
import { LocalProvider } from "../providers/local/local-provider";
import type { ManagedSandbox } from "../providers/types";
import { mountAgentLayer, recordLayerBoot } from "./agent-layer";

// The layer steps of a start against the real local provider (real builds, links, files);
// only the event log is an array. The decisions themselves are table-tested in src/server/layers.

const stateDir = mkdtempSync(join(tmpdir(), "clawrun-agent-layer-"));
const provider = new LocalProvider({ stateDir, logger: pino({ level: "silent" }) });
const events: { type: string; message: string; details: Record<string, unknown> }[] = [];
let wanted: LayerRecipe;
const deps = {
  agent: { name: "demo", layer: () => wanted },
  provider,
  config: { instance: { name: "test" } },
  store: { events: { append: async (e: (typeof events)[number]) => void events.push(e) } },
  clock: Date.now,
  logger: pino({ level: "silent" }),
  timings: { healthBudgetMs: 60_000 },
} as unknown as Parameters<typeof mountAgentLayer>[0];

const recipe = (v: string, fail = false): LayerRecipe => ({
  name: "demo",
  inputs: { v },
  build: [
    fail ? "echo 'registry unreachable' >&2; exit 1" : `mkdir bin && echo ${v} > bin/version`,
  ],
  mountAt: ".clawrun/layer",
});
const sandboxes: ManagedSandbox[] = [];
async function start(): Promise<{ sandbox: ManagedSandbox; version: string }> {
  const sandbox = await provider.create({ timeoutMs: 60_000, ports: [3001] });
  sandboxes.push(sandbox);
  const timings: Record<string, number> = {};
  const layer = await mountAgentLayer(deps, sandbox, timings);
  if (!layer) throw new Error("no layer mounted");
  expect(timings.layerMs).toBeGreaterThanOrEqual(0);
  // Read by a process in the sandbox: the file API refuses links out of the root, by design.
  const version = (
    await sandbox.runCommand({ cmd: "cat", args: [".clawrun/layer/bin/version"] })
  ).stdout.trim();
  return { sandbox, version };
}
const types = () => events.splice(0).map((e) => e.type);

afterAll(async () => {
  await Promise.allSettled(sandboxes.map((s) => s.stop()));
  spawnSync("chmod", ["-R", "u+w", stateDir]);
  rmSync(stateDir, { recursive: true, force: true });
});

describe("the agent layer in a start (local provider)", () => {
  it("builds, mounts, upgrades, falls back after a failed build and rolls back after a failed boot", async () => {
    // First start: built and mounted; its boot makes it the good layer.
    wanted = recipe("1");
    let s = await start();
    expect(s.version).toBe("1");
    expect(readlinkSync(join(s.sandbox.root, ".clawrun/layer"))).toContain(
      join(stateDir, "layers"),
    );
    expect(types()).toEqual(["layer.built"]);
    await recordLayerBoot(deps, s.sandbox.id, await layerOf(), true);

    // Same version again: reused, no event.
    s = await start();
    expect(s.version).toBe("1");
    expect(types()).toEqual([]);

    // An upgrade whose build fails: the previous layer is used, and the event says why.
    wanted = recipe("2", true);
    s = await start();
    expect(s.version).toBe("1");
    const failed = events.find((e) => e.type === "layer.build-failed");
    expect(failed?.message).toMatch(/registry unreachable.*starting on the previous layer/s);
    types();

    // An upgrade that builds but does not boot: marked, and the next start rolls back.
    wanted = recipe("3");
    s = await start();
    expect(s.version).toBe("3");
    expect(types()).toEqual(["layer.built"]);
    await recordLayerBoot(deps, s.sandbox.id, await layerOf(), false);
    expect(types()).toEqual(["layer.boot-failed"]);
    s = await start();
    expect(s.version).toBe("1");
    expect(types()).toEqual(["layer.rollback"]);

    // A newer pinned version is tried again.
    wanted = recipe("4");
    s = await start();
    expect(s.version).toBe("4");
  });

  it("after a good boot, keeps the current and the previous version and removes older ones, never one a live sandbox mounts", async () => {
    const pd = {
      ...deps,
      agent: { name: "pruner", layer: () => wanted },
      config: { instance: { name: "prune" } },
    } as typeof deps;
    const layersDir = join(stateDir, "layers");
    const version = (v: string): LayerRecipe => ({ ...recipe(v), name: "prunable" });
    /** Starts on `v`, records a good boot, and returns the sandbox (stopped unless `keep`). */
    const boot = async (v: string, keep = false) => {
      wanted = version(v);
      const sandbox = await provider.create({ timeoutMs: 60_000, ports: [3001] });
      sandboxes.push(sandbox);
      const layer = await mountAgentLayer(pd, sandbox, {});
      if (!layer) throw new Error("no layer mounted");
      if (!keep) await sandbox.stop(); // asleep: its snapshot holds only a link, no claim
      await recordLayerBoot(pd, sandbox.id, layer, true);
      return layer.id;
    };
    const onDisk = () =>
      readdirSync(layersDir).filter((n) => n.startsWith("prunable-") && !n.includes("."));
    events.splice(0);
    const v1 = await boot("p1");
    const v2 = await boot("p2", true); // stays running on v2
    expect(events.filter((e) => e.type === "layer.pruned")).toEqual([]);
    const v3 = await boot("p3");
    const first = events.filter((e) => e.type === "layer.pruned");
    expect(first).toHaveLength(1);
    expect(first[0]?.details).toMatchObject({ removed: [v1], current: v3 });
    expect(onDisk().sort()).toEqual([v2, v3].sort());
    const v4 = await boot("p4");
    // v2 is older than the previous version (v3) but a live sandbox links to it: kept.
    expect(onDisk().sort()).toEqual([v2, v3, v4].sort());
    for (const s of sandboxes) await s.stop().catch(() => undefined);
    events.splice(0);
    const v5 = await boot("p5");
    expect(onDisk().sort()).toEqual([v4, v5].sort());
    expect(events.find((e) => e.type === "layer.pruned")?.details).toMatchObject({
      removed: expect.arrayContaining([v2, v3]),
    });
    // The other agent's layers (name "demo") were not touched.
    expect(readdirSync(layersDir).some((n) => n.startsWith("demo-"))).toBe(true);
  });

  it("with no previous layer, a failed build fails the start with the reason", async () => {
    const other = {
      ...deps,
      agent: { name: "fresh", layer: () => recipe("9", true) },
    } as typeof deps;
    const sandbox = await provider.create({ timeoutMs: 60_000, ports: [3001] });
    sandboxes.push(sandbox);
    await expect(mountAgentLayer(other, sandbox, {})).rejects.toThrow(
      /could not be built.*registry unreachable/s,
    );
  });
});

/** The layer the last start mounted, as recordLayerBoot takes it. */
async function layerOf(): Promise<{ id: string; recipe: LayerRecipe }> {
  const { layerId } = await import("../layers/layer-id");
  return { id: layerId(wanted), recipe: wanted };
}
