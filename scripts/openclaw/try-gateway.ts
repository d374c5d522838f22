/**
 * Proves OpenClaw runs as ClawRun will run it (docs/agents/openclaw.md):
 *   1. installs Node 24 + openclaw with the sandbox tool (src/server/agents/openclaw/install-tool.ts)
 *      into a fresh temp sandbox root, from an npm cache outside the repo;
 *   2. checks the config file ClawRun writes for each provider kind with `openclaw config validate`;
 *   3. starts `openclaw gateway` against a local fake OpenAI-compatible model server, waits for
 *      /readyz, delivers two messages of one conversation with the real delivery code and
 *      shows the model received the first turn with the second;
 *   4. sleeps and wakes: stops the gateway, snapshots the root with tar + zstd, restores it
 *      under another path, starts again and shows the same conversation continues.
 *
 *   npx tsx scripts/openclaw/try-gateway.ts [--cache DIR] [--keep] [--idle SECONDS]
 * Default cache: $CLAWRUN_OPENCLAW_NPM_CACHE, else ~/.cache/clawrun/npm-openclaw (or under
 * $XDG_CACHE_HOME): tests/openclaw/openclaw-cache.ts. Prints timings and sizes.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import type { ModelChoice } from "../../src/server/agents/model-choice";
import {
  openclawConfigFile,
  openclawModelEnv,
  openclawTokenEnv,
} from "../../src/server/agents/openclaw/config-file";
import { deliverToOpenClaw } from "../../src/server/agents/openclaw/delivery";
import {
  OPENCLAW_NODE_VERSION,
  OPENCLAW_VERSION,
  openclawPaths,
} from "../../src/server/agents/openclaw/install-tool";
import { openclawNpmCache } from "../../tests/openclaw/openclaw-cache";
import { startFakeOpenAI } from "../../tests/support/fake-openai";
import { freePort } from "../../tests/support/free-port";
import { startGateway, waitForStatus200 } from "./gateway-process";
import { duBytes, installOpenClaw, modifiedSince, restore, snapshot } from "./sandbox-home";

const run = promisify(execFile);
const args = process.argv.slice(2);
const cacheDir = args.includes("--cache")
  ? (args[args.indexOf("--cache") + 1] ?? "")
  : openclawNpmCache();
const keep = args.includes("--keep");
/** Seconds of idleness to watch for file writes after the second reply (in 30 s windows). */
const idleSeconds = args.includes("--idle") ? Number(args[args.indexOf("--idle") + 1]) : 30;
const IDLE_WINDOW_S = 30;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

function check(ok: boolean, what: string): void {
  console.log(`${ok ? "PASS" : "FAIL"}: ${what}`);
  if (!ok) process.exitCode = 1;
}

/** Step 2: OpenClaw's own validator accepts the file ClawRun writes, for every provider kind. */
async function validateConfigs(root: string): Promise<void> {
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
  for (const model of kinds) {
    const file = join(root, "..", `validate-${model.provider}.json`);
    await writeFile(
      file,
      openclawConfigFile({ model, port: 3000, gatewayUrl: "https://claw.example.com/api/model" })
        .content,
    );
    const result = await run(join(root, ".local/bin/openclaw"), ["config", "validate", "--json"], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: root,
        OPENCLAW_CONFIG_PATH: file,
      } as unknown as NodeJS.ProcessEnv,
    }).then(
      (r) => ({ ok: true, out: r.stdout }),
      (e: { stdout?: string; stderr?: string }) => ({
        ok: false,
        out: `${e.stdout ?? ""}${e.stderr ?? ""}`,
      }),
    );
    check(
      result.ok,
      `openclaw config validate accepts the ${model.provider} config${result.ok ? "" : `: ${result.out.slice(0, 600)}`}`,
    );
  }
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "openclaw-try-"));
  const root = join(work, "sandbox");
  await mkdir(root);
  console.log(`sandbox root: ${root}\nnpm cache: ${cacheDir}`);
  const fake = await startFakeOpenAI({ apiKey: "sk-fake-model-key", models: ["fake-model"] });
  const gatewayToken = randomBytes(24).toString("base64url");
  try {
    // 1. install
    const installed = await installOpenClaw(root, cacheDir);
    check(
      installed.outcome === "installed",
      `tool installed openclaw ${OPENCLAW_VERSION} on node ${OPENCLAW_NODE_VERSION} in ${s(installed.ms)}`,
    );
    const paths = openclawPaths(OPENCLAW_VERSION, OPENCLAW_NODE_VERSION);
    const installBytes = await duBytes(join(root, ".local"));
    console.log(
      `installed size: ${mb(installBytes)} (node ${mb(await duBytes(join(root, paths.nodeDir)))}, openclaw ${mb(await duBytes(join(root, paths.openclawDir)))})`,
    );
    const bare = await snapshot(root, join(work, "installed.tar.zst"));
    console.log(`tar+zstd of the installed tree: ${mb(bare.bytes)} in ${s(bare.ms)}`);

    // 2. config validation
    await validateConfigs(root);

    // 3. gateway + two turns
    const model: ModelChoice = {
      provider: "openai-compatible",
      baseUrl: fake.baseUrl,
      model: "fake-model",
      apiKey: { fromEnv: "UNUSED" },
    };
    const port = await freePort();
    // No ClawRun here: the fake model server stands where ClawRun's model gateway would be
    // (its root; OpenClaw adds /v1/chat/completions).
    const gatewayUrl = fake.baseUrl.replace(/\/v1$/, "");
    const file = openclawConfigFile({ model, port, gatewayUrl });
    await mkdir(join(root, ".openclaw"), { recursive: true });
    await writeFile(join(root, file.path), file.content);
    const env = { ...openclawModelEnv("sk-fake-model-key"), ...openclawTokenEnv(gatewayToken) };
    const conversation = "telegram:4242";
    const say = async (baseUrl: string, id: string, text: string) => {
      const start = performance.now();
      // A try-out on this machine with no sidecar in front: straight to the gateway. ClawRun
      // itself reaches it only through the sidecar's door (docs/sidecar.md).
      const direct = {
        label: baseUrl,
        sandboxId: "try-gateway",
        fetch: (path: string, init?: RequestInit) => fetch(`${baseUrl}${path}`, init),
      };
      const r = await deliverToOpenClaw(
        direct,
        gatewayToken,
        { id, conversation, text },
        AbortSignal.timeout(300_000),
      );
      console.log(
        `  ${id}: "${text}" -> ${s(performance.now() - start)}: ${r.reply.slice(0, 160)}`,
      );
      return r;
    };

    let gw = startGateway(root, port, env);
    let base = `http://127.0.0.1:${port}`;
    const live = await waitForStatus200(base, "/healthz", gw.child);
    const ready = await waitForStatus200(base, "/readyz", gw.child);
    console.log(
      `gateway (first start): /healthz 200 after ${s(live)}, /readyz 200 after ${s(live + ready)}`,
    );
    await say(base, "m1", "My name is Zed and my favourite colour is teal.");
    await say(base, "m2", "What is my favourite colour?");
    const second = fake.chatRequests().at(-1);
    check(
      JSON.stringify(second?.messages ?? []).includes("favourite colour is teal"),
      "the model received turn 1 together with turn 2 (same session)",
    );
    // What an idle gateway writes: ClawRun's activity tracker counts file writes as work.
    for (let window = 0; window * IDLE_WINDOW_S < idleSeconds; window++) {
      const from = Date.now();
      await new Promise((r) => setTimeout(r, IDLE_WINDOW_S * 1000));
      const touched = await modifiedSince(root, from, [".local"]);
      console.log(
        `idle ${window * IDLE_WINDOW_S}-${(window + 1) * IDLE_WINDOW_S} s after the reply, files written: ${touched.length === 0 ? "none" : touched.join(", ")}`,
      );
    }
    await gw.stop();

    // 4. sleep (snapshot) and wake (restore elsewhere)
    const state = await duBytes(join(root, ".openclaw"));
    const snap = await snapshot(root, join(work, "snapshot.tar.zst"));
    console.log(
      `snapshot after the conversation: ${mb(snap.bytes)} in ${s(snap.ms)} (state dir ${mb(state)})`,
    );
    const woken = join(work, "restored");
    const restoreMs = await restore(join(work, "snapshot.tar.zst"), woken);
    console.log(`restore: ${s(restoreMs)}`);
    const port2 = await freePort();
    // The config names the port, so a wake on another port rewrites it (as ClawRun provisions it).
    await writeFile(
      join(woken, file.path),
      openclawConfigFile({ model, port: port2, gatewayUrl }).content,
    );
    gw = startGateway(woken, port2, env);
    base = `http://127.0.0.1:${port2}`;
    const live2 = await waitForStatus200(base, "/healthz", gw.child);
    const ready2 = await waitForStatus200(base, "/readyz", gw.child);
    console.log(
      `gateway (after wake): /healthz 200 after ${s(live2)}, /readyz 200 after ${s(live2 + ready2)}`,
    );
    await say(base, "m3", "And what is my name?");
    const third = JSON.stringify(fake.chatRequests().at(-1)?.messages ?? []);
    check(
      third.includes("favourite colour is teal") && third.includes("What is my favourite colour?"),
      "after sleep and wake the model received the earlier turns",
    );
    await gw.stop();
    console.log(
      `model server requests: ${fake.requests.map((r) => `${r.method} ${r.path}`).join(", ")}`,
    );
  } finally {
    await fake.close();
    if (keep) console.log(`kept ${work}`);
    else await rm(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
