import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { heartbeatSecret } from "../../src/protocol/derive-key";
import { deliverOverHttp } from "../../src/server/agents/http-delivery";
import type { Agent } from "../../src/server/agents/types";
import type { LayerRecipe } from "../../src/server/layers/types";
import { prepareLayer } from "../../src/server/operator/prepare-layer";
import { TemplatedProvider } from "../../src/server/sandbox/templated/templated-provider";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";
import {
  startVercelSandboxEmulator,
  type VercelSandboxEmulator,
} from "../support/vercel-sandbox-emulator";

/**
 * Issue 23 on the Vercel provider (snapshot mode), through the real SDK against the Vercel
 * Sandbox API emulator, the real sidecar and a real daemon: the agent's layer is a template
 * snapshot made once per layer id, every start creates the sandbox from it, and the agent's
 * state is an archive in ClawRun's store (a full snapshot when it is over the cap). The
 * layer is synthetic (its build writes the daemon), so a sandbox without it cannot start.
 */

let h: LifecycleHarness | null = null;
let emulator: VercelSandboxEmulator;
beforeAll(async () => {
  emulator = await startVercelSandboxEmulator();
});
afterEach(async () => {
  await h?.stop();
  h = null;
  pinned.version = "1";
});
afterAll(async () => {
  await emulator?.close();
});

const USER_SECRET = `user-secret-${randomBytes(12).toString("hex")}`;

const daemonScript = `
const http = require("http"), fs = require("fs"), path = require("path");
const dir = path.join(process.env.HOME || process.cwd(), "agent-state");
fs.mkdirSync(dir, { recursive: true });
fs.appendFileSync(path.join(dir, "boots.txt"), "boot " + (process.env.USER_SECRET ? "with" : "without") + " its secret\\n");
http.createServer((q, s) => {
  let b = ""; q.on("data", (c) => (b += c)); q.on("end", () => {
    fs.appendFileSync(path.join(dir, "notes.txt"), b + "\\n");
    s.setHeader("content-type", "application/json");
    s.end(JSON.stringify({ reply: "noted" }));
  });
}).listen(process.env.PORT);`;

/** Version "broken" is an upgrade whose daemon exits at once: it never boots. */
const recipe = (version: string): LayerRecipe => ({
  name: "synthetic",
  inputs: { version },
  build: [
    version === "broken"
      ? "mkdir -p bin && echo 'process.exit(3)' > bin/daemon.js"
      : `mkdir -p bin && cat > bin/daemon.js <<'CLAWRUN_EOF'\n${daemonScript}\nCLAWRUN_EOF`,
  ],
  mountAt: ".clawrun/layer",
});
/** The pinned layer version the next app built (newContext) will want. */
const pinned = { version: "1" };

const layeredAgent: Agent = {
  name: "layered-test",
  deliveryTimeoutMs: 10_000,
  files: async () => [],
  layer: () => recipe(pinned.version),
  daemon: () => ({
    command: "node",
    args: [".clawrun/layer/bin/daemon.js"],
    env: { USER_SECRET },
    port: 3000,
  }),
  deliver: (door, message, signal) => deliverOverHttp(door, "/message", message, "json", signal),
};

const config = (name: string, vercel: Record<string, unknown> = {}) => ({
  instance: { name: `${name}-${randomBytes(3).toString("hex")}` },
  sandbox: { provider: "vercel", activeDuration: 60, vercel: { mode: "snapshot", ...vercel } },
});

async function start(name: string, vercel: Record<string, unknown> = {}) {
  h = await lifecycleHarness({
    agent: layeredAgent,
    config: config(name, vercel),
    env: emulator.env,
    // The broken upgrade's daemon crash-loops until the sidecar gives up: 5 restarts at 2 s
    // each were 10 s of waiting for the same verdict.
    sidecarTimings: { restartDelayMs: 200 },
  });
  return h;
}

const templated = (x: LifecycleHarness) => {
  expect(x.provider).toBeInstanceOf(TemplatedProvider);
  return x.provider as TemplatedProvider;
};

async function wake(x: LifecycleHarness, manager = x.manager) {
  expect((await manager.wake({ reason: "test", trigger: "operator" })).status).toBe("running");
  return x.provider.get((await x.status()).sandboxId as string);
}

async function read(x: LifecycleHarness, path: string): Promise<string | undefined> {
  const sandbox = await x.provider.get((await x.status()).sandboxId as string);
  return (await sandbox.readFile(path))?.toString();
}

it("makes the template once, archives the state without the layer, and restores it onto the template", async () => {
  const x = await start("tpl");
  const provider = templated(x);
  let sandbox = await wake(x);
  expect(await x.events("layer.built")).toHaveLength(1);
  expect(await read(x, "agent-state/boots.txt")).toBe("boot with its secret\n");
  await sandbox.writeFiles([{ path: "work/note.txt", content: "kept" }]);

  expect((await x.manager.sleep("test")).status).toBe("sleeping");
  const archiveId = (await x.status()).snapshotId as string;
  expect(archiveId).toMatch(/^state_/);
  expect((await x.events("state.archived"))[0]?.details).toMatchObject({ archiveId });
  // The only snapshot Vercel holds is the template: the agent's state is in the store.
  const [template] = Object.values(await provider.templates.records());
  expect([...emulator.service.snapshots.keys()]).toEqual([template?.snapshotId]);
  expect((await x.provider.listSnapshots()).map((s) => s.id)).toEqual([archiveId]);

  // The archive holds the state, not the layer, and no secret.
  const archive = await provider.archives.read(archiveId);
  const listing = execFileSync("tar", ["-tz"], { input: archive }).toString().split("\n");
  expect(listing).toEqual(expect.arrayContaining(["./work/note.txt", "./agent-state/boots.txt"]));
  expect(listing.filter((f) => f.startsWith("./.clawrun/layer/"))).toEqual([]);
  const tar = gunzipSync(archive);
  const master = x.params.source.CLAWRUN_SECRET as string;
  const source = (await provider.archives.list())[0]?.sourceSandboxId as string;
  expect(source).toBe(sandbox.id);
  for (const secret of [USER_SECRET, master, heartbeatSecret(master, source)])
    expect(tar.includes(secret)).toBe(false);

  // Wake: from the template, the state unpacked onto it; the daemon (a layer file) runs.
  sandbox = await wake(x);
  expect((await x.events("layer.template-used"))[0]?.details).toMatchObject({
    archiveId,
    templateSnapshotId: template?.snapshotId,
  });
  expect(await read(x, "work/note.txt")).toBe("kept");
  expect(await read(x, "agent-state/boots.txt")).toBe(
    "boot with its secret\nboot with its secret\n",
  );

  // Another server sleeps and wakes it on the same template: no second build.
  const other = await x.newContext();
  expect((await x.manager.sleep("test")).status).toBe("sleeping");
  await wake(x, other.manager);
  expect(await x.events("layer.built")).toHaveLength(1);
  expect(await x.events("layer.rebuilt")).toHaveLength(0);

  // The template's snapshot deleted behind ClawRun's back: rebuilt, the state intact.
  expect((await x.manager.sleep("test")).status).toBe("sleeping");
  await emulator.service.dropSnapshot(template?.snapshotId as string);
  await wake(x);
  const rebuilt = await x.events("layer.rebuilt");
  expect(rebuilt).toHaveLength(1);
  expect(rebuilt[0]?.message).toContain("no longer exists");
  expect(await read(x, "work/note.txt")).toBe("kept");
  expect((await provider.templates.records())[template?.layerId as string]?.snapshotId).not.toBe(
    template?.snapshotId,
  );
}, 180_000);

it("saves a state over the cap as a full snapshot, says why, and wakes from it", async () => {
  const x = await start("cap", { maxStateArchiveMiB: 1 });
  const sandbox = await wake(x);
  // Random bytes do not compress: 2 MiB of them is over the 1 MiB cap.
  const big = randomBytes(2 * 1024 * 1024);
  await sandbox.writeFiles([{ path: "work/big.bin", content: big }]);
  expect((await x.manager.sleep("test")).status).toBe("sleeping");
  const full = await x.events("state.full-snapshot");
  expect(full).toHaveLength(1);
  expect(full[0]?.message).toMatch(/over the 1\.0 MiB cap/);
  const snapshotId = (await x.status()).snapshotId as string;
  expect(snapshotId).not.toMatch(/^state_/);
  expect(await templated(x).archives.list()).toEqual([]);

  const woken = await wake(x);
  expect((await woken.readFile("work/big.bin"))?.equals(big)).toBe(true);
  expect(await x.events("layer.built")).toHaveLength(1);
}, 120_000);

it("two servers preparing at once build the template once", async () => {
  const x = await start("race");
  const other = await x.newContext();
  const answers = await Promise.all(
    [x.ctx, other].map(async (ctx) => {
      const res = await prepareLayer(ctx, { waitMs: 60_000 });
      expect(res.status).toBe(200);
      return (await res.json()) as { action: string; snapshotId: string; kind: string };
    }),
  );
  expect(answers.map((a) => a.action).sort()).toEqual(["built", "reused"]);
  expect(answers[0]?.snapshotId).toBe(answers[1]?.snapshotId);
  expect(answers[0]?.kind).toBe("template");
  expect(await x.events("layer.built")).toHaveLength(1);
  // The first start uses it: nothing more is built.
  await wake(x);
  expect(await x.events("layer.built")).toHaveLength(1);
}, 120_000);

it("a damaged state archive is refused by its hash, and waking on an older one says so", async () => {
  const x = await start("damaged");
  for (const note of ["older", "newer"]) {
    const sandbox = await wake(x);
    await sandbox.writeFiles([{ path: "work/note.txt", content: note }]);
    expect((await x.manager.sleep(note)).status).toBe("sleeping");
  }
  const [newest, older] = await templated(x).archives.list();
  await x.store.kv.set(
    `state-archive/${newest?.id}/0`,
    Buffer.from("not it").toString("base64"),
    null,
  );

  await wake(x);
  expect((await x.events("sandbox.create-failed"))[0]?.message).toContain(
    "does not match its hash",
  );
  const rolledBack = await x.events("state.rolled-back");
  expect(rolledBack).toHaveLength(1);
  expect(rolledBack[0]).toMatchObject({ level: "error", details: { restoredFrom: older?.id } });
  expect(await read(x, "work/note.txt")).toBe("older");
}, 120_000);

it("an upgrade whose layer does not boot rolls back to the previous template, state kept", async () => {
  const x = await start("upgrade");
  const sandbox = await wake(x);
  await sandbox.writeFiles([{ path: "work/note.txt", content: "kept" }]);
  expect((await x.manager.sleep("test")).status).toBe("sleeping");

  // A deployment pins a new version whose daemon never starts.
  pinned.version = "broken";
  const upgraded = await x.newContext();
  const failed = await upgraded.manager.wake({ reason: "upgrade", trigger: "operator" });
  expect(failed.status).toBe("failed");
  expect(await x.events("layer.built")).toHaveLength(2);
  const bootFailed = await x.events("layer.boot-failed");
  expect(bootFailed).toHaveLength(1);
  expect(bootFailed[0]?.message).toContain("rolls back");

  // The next start (same deployment) uses the last layer that booted, on the same state.
  await wake(x, upgraded.manager);
  const rollback = await x.events("layer.rollback");
  expect(rollback).toHaveLength(1);
  expect(rollback[0]?.details).toMatchObject({ layerId: expect.stringMatching(/^synthetic-/) });
  expect(await read(x, "work/note.txt")).toBe("kept");
  expect(await x.events("layer.built")).toHaveLength(2);
}, 180_000);

it("after two upgrades the oldest template is deleted; the current and previous stay", async () => {
  const x = await start("prune");
  await wake(x);
  const first = Object.values(await templated(x).templates.records())[0];
  let manager = x.manager;
  for (const version of ["2", "3"]) {
    expect((await manager.sleep("upgrade")).status).toBe("sleeping");
    pinned.version = version;
    manager = (await x.newContext()).manager;
    await wake(x, manager);
  }
  const records = await ((await x.newContext()).provider as TemplatedProvider).templates.records();
  expect(Object.keys(records)).toHaveLength(2);
  expect(records[first?.layerId as string]).toBeUndefined();
  expect(emulator.service.snapshots.has(first?.snapshotId as string)).toBe(false);
  const pruned = await x.events("layer.pruned");
  expect(pruned[0]?.details).toMatchObject({ removed: [first?.layerId] });
}, 180_000);
