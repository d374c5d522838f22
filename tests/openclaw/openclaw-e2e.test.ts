import { execFile, execFileSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveKey } from "../../src/protocol/derive-key";
import type { ModelChoice } from "../../src/server/agents/model-choice";
import { openclawConfigFile } from "../../src/server/agents/openclaw/config-file";
import { OPENCLAW_VERSION } from "../../src/server/agents/openclaw/install-tool";
import {
  openclawConnectParams,
  prepareOpenClawSleep,
} from "../../src/server/agents/openclaw/suspend";
import { sidecarClient } from "../../src/server/door/sidecar-client";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { type FakeOpenAI, messageText, startFakeOpenAI } from "../support/fake-openai";
import { waitFor } from "../support/free-port";
import { eventsOf, instanceStatus, operatorGet, sendMessage } from "../support/messages";
import { startReplyReceiver } from "../support/reply-receiver";
import {
  archiveHolds,
  filesHolding,
  processesHolding,
  sandboxProcesses,
} from "../support/secret-scan";
import { sleepNow } from "../support/sleep-now";
import { openclawNpmCache } from "./openclaw-cache";

/**
 * OpenClaw end to end (issue 16): the production server, the local provider, the real sidecar
 * and the REAL openclaw package from the npm registry, installed by its launcher inside the
 * sandbox; only the model provider is a local stand-in that speaks the OpenAI chat-completions
 * API and answers with what it was sent. OpenClaw reaches it only through ClawRun's model
 * gateway, with its sandbox's credential; the real key stays in ClawRun.
 * Heavy (minutes): `npm run test:openclaw`, not `npm test`.
 */
/** Distinctive, so finding it anywhere in the sandbox cannot be a coincidence. */
const MODEL_KEY = "sk-real-e2e-key-3f9c27d1b8a4";
let fake: FakeOpenAI;
let server: ClawrunServer;
let receiver: Awaited<ReturnType<typeof startReplyReceiver>>;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: MODEL_KEY, models: ["fake-model"] });
  receiver = await startReplyReceiver(() => server.secrets.webhook);
  server = await startClawrun({
    config: {
      agent: {
        type: "openclaw",
        provider: "openai-compatible",
        baseUrl: fake.baseUrl,
        model: "fake-model",
        apiKey: { fromEnv: "E2E_MODEL_KEY" },
        npmCacheDir: openclawNpmCache(),
      },
      sandbox: { activeDuration: 20 },
      // The gateway bills every call: the fake model needs a price.
      modelGateway: { prices: { "fake-model": { input: 1, output: 2 } } },
      channels: { generic: { replyUrl: receiver.url } },
    },
    timings: { heartbeatIntervalMs: 1_000 },
    env: { E2E_MODEL_KEY: MODEL_KEY },
  });
});
afterAll(async () => {
  await server?.stop();
  await receiver?.stop();
  await fake?.close();
});

const replyTo = (id: string) => receiver.replies.find((r) => r.inReplyTo === id);
/** The user turns the model received with its newest request (OpenClaw sends the history). */
const lastUserTurns = () =>
  (fake.chatRequests().at(-1)?.messages ?? [])
    .filter((m) => m.role === "user")
    .map((m) => messageText(m));
const sandboxRoot = async () => {
  const { instance } = await operatorGet<{ instance: { sandboxId: string } }>(
    server,
    "/api/sandbox",
  );
  return join(server.stateDir, "sandboxes", instance.sandboxId, "root");
};
const sandboxLog = async () =>
  readFileSync(join(await sandboxRoot(), "logs", "sidecar.log"), "utf8");
/** ClawRun's client for the running sandbox's door, and that sandbox's gateway token. */
const sandboxDoor = async () => {
  const { instance } = await operatorGet<{ instance: { sandboxId: string } }>(
    server,
    "/api/sandbox",
  );
  const id = instance.sandboxId;
  const meta = JSON.parse(
    readFileSync(join(server.stateDir, "sandboxes", id, "meta.json"), "utf8"),
  ) as { ports: Record<string, number> };
  const door = sidecarClient(
    { id, domain: (port) => `http://127.0.0.1:${meta.ports[String(port)]}` },
    server.secrets.clawrun,
  );
  const token = deriveKey(server.secrets.clawrun, `agent/openclaw/gateway-token/${id}`).toString(
    "base64url",
  );
  return { door, token };
};
/** The layer the running sandbox mounts (`.clawrun/layer` links to it). */
const mountedLayer = async () => readlinkSync(join(await sandboxRoot(), ".clawrun", "layer"));
/** Paths in a local snapshot's archive, with `tar -tv`'s type letter and link target. */
function archiveEntries(snapshotId: string): { path: string; line: string }[] {
  const dir = join(server.stateDir, "snapshots", snapshotId);
  const meta = JSON.parse(readFileSync(join(dir, "meta.json"), "utf8")) as { format: string };
  const file = join(dir, meta.format === "tar.zst" ? "archive.tar.zst" : "archive.tar.gz");
  const flags = meta.format === "tar.zst" ? ["--use-compress-program", "zstd -d -q"] : ["-z"];
  const out = execFileSync("tar", [...flags, "-tvf", file], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return out
    .trim()
    .split("\n")
    .map((line) => ({ line, path: line.split(/\s+/).slice(5).join(" ").replace(/^\.\//, "") }));
}

describe("OpenClaw as the agent (real package, fake model, local provider)", () => {
  it(
    "a message wakes a never-started instance: the OpenClaw layer is built, the gateway starts from it and answers through the model; the reply reaches the channel",
    async () => {
      const res = await sendMessage(server, {
        id: "m1",
        conversation: "alice",
        text: "My name is Zed and my favourite colour is teal.",
      });
      expect(res).toEqual({ status: 202, body: { status: "queued", id: "m1" } });
      await waitFor("the first reply", async () => replyTo("m1"), 9 * 60_000, 500);
      const reply = replyTo("m1");
      expect(reply).toMatchObject({ conversation: "alice", verified: true });
      expect(reply?.text).toMatch(/^fake-openai heard \d+ user message/);
      expect(reply?.text).toContain("My name is Zed and my favourite colour is teal.");
      // The model server got the real key (it refuses any other), the model is the configured
      // one: ClawRun's gateway forwarded the call, since the daemon only has its credential.
      expect(fake.requests.every((r) => r.headers.authorization === `Bearer ${MODEL_KEY}`)).toBe(
        true,
      );
      expect(fake.chatRequests().at(-1)?.model).toBe("fake-model");
      const config = readFileSync(join(await sandboxRoot(), ".openclaw", "openclaw.json"), "utf8");
      expect(config).toContain(`${server.url}/api/model/v1`);
      expect(config).not.toContain(fake.baseUrl);
      const usage = await operatorGet<{ today: { models: { model: string; calls: number }[] } }>(
        server,
        "/api/sandbox/usage",
      );
      expect(usage.today.models.find((m) => m.model === "fake-model")?.calls).toBeGreaterThan(0);

      const overview = await operatorGet<{ agent: unknown; instance: { status: string } }>(
        server,
        "/api/sandbox",
      );
      expect(overview.instance.status).toBe("running");
      expect(overview.agent).toEqual({
        type: "openclaw",
        version: OPENCLAW_VERSION,
        model: "openai-compatible/fake-model",
      });
      // The runtime is a shared layer outside the sandbox, linked in; nothing was installed inside.
      const built = await eventsOf(server, "layer.built");
      expect(built).toHaveLength(1);
      const layerDir = join(server.stateDir, "layers", String(built[0]?.details.layerId));
      expect(await mountedLayer()).toBe(layerDir);
      expect(lstatSync(join(await sandboxRoot(), ".clawrun", "layer")).isSymbolicLink()).toBe(true);
      expect(statSync(join(layerDir, "bin", "openclaw")).mode & 0o222).toBe(0); // read-only
      const log = await sandboxLog();
      expect(log).not.toContain("openclaw is not installed");
    },
    10 * 60_000,
  );

  it(
    "answers the next message of the conversation inline, with the earlier turn in the model's context",
    async () => {
      const res = await sendMessage(server, {
        id: "m2",
        conversation: "alice",
        text: "What is my favourite colour?",
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: "delivered", id: "m2" });
      expect(lastUserTurns().join("\n")).toContain("favourite colour is teal");
      expect(String(res.body.reply)).toContain("What is my favourite colour?");
    },
    5 * 60_000,
  );

  it("the real model key is in no file of the sandbox and no environment or command line of its processes", async () => {
    const root = await sandboxRoot();
    expect(filesHolding(root, MODEL_KEY)).toEqual([]);
    const pids = sandboxProcesses(root);
    expect(pids.length).toBeGreaterThanOrEqual(2); // the sidecar and OpenClaw at least
    expect(processesHolding(pids, MODEL_KEY)).toEqual([]);
    // The scans do find what is there: the daemon's credential, the gateway's URL in the config.
    expect(processesHolding(pids, "crm_").length).toBeGreaterThan(0);
    expect(filesHolding(root, `${server.url}/api/model`).length).toBeGreaterThan(0);
  });

  it(
    "OpenClaw's own suspend protocol through the door: prepare takes a lease that fences a second one, resume releases it, and the agent answers after",
    async () => {
      const { door, token } = await sandboxDoor();
      const control = door.control();
      const signal = () => AbortSignal.timeout(60_000);
      const first = await prepareOpenClawSleep(control, token, signal());
      expect(first).toMatchObject({ ready: true, suspensionId: expect.any(String) });
      const { leaseMs, suspensionId } = first as { leaseMs: number; suspensionId: string };
      expect(leaseMs).toBeGreaterThan(60_000);
      expect(leaseMs).toBeLessThanOrEqual(120_000);
      // While ClawRun holds the lease, another prepare is "not now", not an error.
      const second = await prepareOpenClawSleep(control, token, signal());
      expect(second).toMatchObject({ ready: false });
      const resumed = await door.gatewayRpc(
        {
          path: "/",
          connect: openclawConnectParams(token),
          method: "gateway.suspend.resume",
          params: { suspensionId },
          timeoutMs: 30_000,
        },
        signal(),
      );
      expect(resumed).toMatchObject({ ok: true, payload: { status: "running", resumed: true } });
      const res = await sendMessage(server, {
        id: "m2s",
        conversation: "alice",
        text: "Are you back?",
      });
      expect(res.status).toBe(200);
      expect(String(res.body.reply)).toContain("Are you back?");
    },
    5 * 60_000,
  );

  it(
    "OpenClaw's own validator accepts the config file ClawRun writes, for every provider kind",
    async () => {
      const openclaw = join(await sandboxRoot(), ".clawrun", "layer", "bin", "openclaw");
      const kinds: ModelChoice[] = [
        { provider: "openai", model: "gpt-5.5", apiKey: { fromEnv: "K" } },
        { provider: "anthropic", model: "claude-sonnet-4-6", apiKey: { fromEnv: "K" } },
        {
          provider: "openai-compatible",
          baseUrl: "http://127.0.0.1:4000/v1",
          model: "llama-3.1-8b",
          apiKey: { fromEnv: "K" },
        },
      ];
      // Its own state dir: the running gateway's is left alone.
      const dir = mkdtempSync(join(tmpdir(), "openclaw-validate-"));
      try {
        for (const model of kinds) {
          const file = join(dir, `${model.provider}.json`);
          writeFileSync(
            file,
            openclawConfigFile({ model, port: 3000, gatewayUrl: `${server.url}/api/model` })
              .content,
          );
          const result = await promisify(execFile)(openclaw, ["config", "validate", "--json"], {
            env: {
              PATH: process.env.PATH,
              HOME: dir,
              OPENCLAW_STATE_DIR: dir,
              OPENCLAW_CONFIG_PATH: file,
            } as unknown as NodeJS.ProcessEnv,
          }).catch((e: { stdout?: string; stderr?: string; code?: unknown; signal?: unknown }) => ({
            failed: `exit ${String(e.code)} signal ${String(e.signal)}: ${e.stdout ?? ""}${e.stderr ?? ""}`,
          }));
          expect(result, model.provider).not.toHaveProperty("failed");
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    3 * 60_000,
  );

  it(
    "sleeps when idle (its housekeeping writes do not keep it awake) into a snapshot of its state only, wakes on a message on the same layer, and the conversation continues",
    async () => {
      await waitFor(
        "sleeping",
        async () => (await instanceStatus(server)) === "sleeping",
        5 * 60_000,
        500,
      );
      const res = await sendMessage(server, { id: "m3", conversation: "alice", text: "Who am I?" });
      expect(res.status).toBe(202);
      // Generous: on this shared machine (load average 20-30) a wake to reply took over 6 min.
      await waitFor("the reply after the wake", async () => replyTo("m3"), 10 * 60_000, 500);
      const turns = lastUserTurns().join("\n");
      expect(turns).toContain("My name is Zed and my favourite colour is teal.");
      expect(turns).toContain("What is my favourite colour?");
      expect(replyTo("m3")?.text).toContain("Who am I?");

      // The idle sleep asked OpenClaw first and it agreed (gateway.suspend.prepare: ready).
      const snapshotting = (await eventsOf(server, "status.snapshotting")).at(-1);
      expect(snapshotting?.details).toMatchObject({ consent: "the agent agreed to sleep" });

      const running = (await eventsOf(server, "status.running"))[0];
      const snapshotId = String(running?.details.restoredFrom);
      expect(snapshotId).toMatch(/^snap_/);
      // The snapshot holds the agent's state, not what it is: small, and no layer file in it.
      const { snapshots } = await operatorGet<{ snapshots: { id: string; sizeBytes: number }[] }>(
        server,
        "/api/sandbox/snapshots",
      );
      const size = snapshots.find((x) => x.id === snapshotId)?.sizeBytes ?? Infinity;
      expect(size).toBeLessThanOrEqual(10 * 1024 * 1024);
      const entries = archiveEntries(snapshotId);
      expect(entries.filter((e) => /node_modules|\.local\/lib\//.test(e.path))).toEqual([]);
      const link = entries.find((e) => e.path.startsWith(".clawrun/layer ->"));
      expect(link?.line.startsWith("l")).toBe(true);
      expect(entries.some((e) => e.path.startsWith(".openclaw/openclaw.json"))).toBe(true);
      expect(entries.some((e) => e.path.includes("openclaw-agent.sqlite"))).toBe(true);
      // No snapshot holds the real model key (each does hold the config naming the gateway).
      for (const { id } of snapshots) {
        const dir = join(server.stateDir, "snapshots", id);
        const file = ["archive.tar.zst", "archive.tar.gz"]
          .map((f) => join(dir, f))
          .find((f) => existsSync(f));
        if (!file) throw new Error(`snapshot ${id} has no archive`);
        expect(archiveHolds(file, `${server.url}/api/model`), id).toBe(true);
        expect(archiveHolds(file, MODEL_KEY), id).toBe(false);
      }
      // The wake reused the layer: still one build, nothing installed in the sandbox.
      expect(await eventsOf(server, "layer.built")).toHaveLength(1);
      expect(await eventsOf(server, "layer.rebuilt")).toHaveLength(0);
      const log = await sandboxLog();
      expect(log).not.toContain("openclaw is not installed");
      expect(log.match(/daemon listening on port/g)?.length).toBeGreaterThanOrEqual(2);
    },
    16 * 60_000,
  );

  it(
    "a layer whose files were altered is refused and rebuilt (with an event) at the next wake; the agent's state is kept",
    async () => {
      const layerDir = await mountedLayer();
      const victim = join(layerDir, "openclaw", "node_modules", "openclaw", "README.md");
      chmodSync(victim, 0o644);
      appendFileSync(victim, "\naltered\n");
      await sleepNow(server);
      const res = await sendMessage(server, { id: "m4", conversation: "alice", text: "Still me?" });
      expect(res.status).toBe(202);
      await waitFor("the reply after the rebuild", async () => replyTo("m4"), 14 * 60_000, 500);
      const rebuilt = await eventsOf(server, "layer.rebuilt");
      expect(rebuilt).toHaveLength(1);
      expect(rebuilt[0]?.message).toMatch(/content hash/);
      expect(await mountedLayer()).toBe(layerDir); // same id: same recipe, rebuilt in place
      expect(readFileSync(victim, "utf8")).not.toContain("altered");
      expect(lastUserTurns().join("\n")).toContain("My name is Zed");
    },
    16 * 60_000,
  );
});
