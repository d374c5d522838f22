import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readEnv } from "../../src/config/env";
import { deriveKey } from "../../src/protocol/derive-key";
import { type Agent, PROVISION_DIR } from "../../src/server/agents/types";
import { parseConfigText } from "../../src/server/compose/config-schema";
import { buildAgent } from "../../src/server/compose/modules";
import { extractArchive } from "../../src/server/providers/local/snapshot-archive";
import { freePort } from "../support/free-port";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

/**
 * Issue 22, item 1: no secret a daemon receives is ever written to a file of the sandbox, a
 * snapshot or a log. Every secret an agent gets (the model key of OpenClaw and ZeroClaw, their
 * gateway tokens, a user's `fromEnv` variable) is given a distinctive value; the real echo daemon
 * runs with all of them in its environment and with OpenClaw's and ZeroClaw's real config files
 * provisioned; then start → sleep → wake with the local provider, and every file under the
 * state dir (sandbox roots, logs, metadata, the store) and inside every snapshot archive is
 * searched for the values.
 */

let h: LifecycleHarness | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await h?.stop();
  h = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const mark = (name: string) => `${name}-${randomBytes(12).toString("hex")}`;

/** Every regular file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** The (file, secret name) pairs where a secret's value appears. */
function findSecrets(files: string[], secrets: Record<string, string>): string[] {
  const found: string[] = [];
  for (const file of files) {
    const content = readFileSync(file).toString("latin1");
    for (const [name, value] of Object.entries(secrets))
      if (content.includes(value)) found.push(`${file}: ${name}`);
  }
  return found;
}

/**
 * The echo daemon's start script here: the real echo agent, plus its environment as JSON on a
 * loopback port of the test's choosing. The environment is read from the running daemon, as
 * `/proc/<pid>/environ` does not show it when it was handed over to a process that had already
 * booted (the local provider's warm Node, docs/local-provider.md).
 */
const ENV_REPORTER = `require("node:http").createServer((q, s) => s.end(JSON.stringify(process.env))).listen(Number(process.env.ENV_REPORT_PORT), "127.0.0.1"); require("./agent-echo.js");`;

/** The real echo daemon, given everything OpenClaw and ZeroClaw would provision and receive. */
function everyAgentsSecrets(
  master: string,
  secrets: Record<string, string>,
  envReportPort: number,
): Agent {
  const env = readEnv(
    {
      PATH: "/usr/bin:/bin",
      CLAWRUN_STATE_DIR: "/tmp/clawrun-unused",
      OC_KEY: secrets.openclawModelKey as string,
      ZC_KEY: secrets.zeroclawModelKey as string,
      USER_SECRET: secrets.userFromEnv as string,
    },
    "/tmp",
  );
  const build = (agent: Record<string, unknown>) =>
    buildAgent(
      parseConfigText(JSON.stringify({ agent }), "clawrun.json").config,
      env,
      "/tmp",
      master,
    );
  const model = { provider: "openai", model: "gpt-test" };
  const openclaw = build({ type: "openclaw", ...model, apiKey: { fromEnv: "OC_KEY" } });
  const zeroclaw = build({ type: "zeroclaw", ...model, apiKey: { fromEnv: "ZC_KEY" } });
  const echo = build({ type: "echo", env: { MY_TOKEN: { fromEnv: "USER_SECRET" } } });
  return {
    name: "echo",
    deliveryTimeoutMs: echo.deliveryTimeoutMs,
    files: async () => [
      ...(await echo.files()),
      { path: `${PROVISION_DIR}/env-report.js`, content: ENV_REPORTER },
      // Their config files and launchers, as they would be written (not run: no install here).
      ...(await openclaw.files()),
      ...(await zeroclaw.files()),
    ],
    daemon: () => {
      const d = echo.daemon();
      const env = { ...openclaw.daemon().env, ...zeroclaw.daemon().env, ...d.env };
      return {
        ...d,
        args: [`${PROVISION_DIR}/env-report.js`],
        env: { ...env, ENV_REPORT_PORT: String(envReportPort) },
      };
    },
    // OpenClaw's per-sandbox gateway token, and its per-boot model credential.
    sandboxEnv: (sandboxId) => openclaw.sandboxEnv?.(sandboxId) ?? {},
    modelEnv: (credential) => openclaw.modelEnv?.(credential) ?? {},
    deliver: (door, message, signal) => echo.deliver(door, message, signal),
  };
}

describe("secrets at rest (real local provider, sidecar, echo daemon)", () => {
  it("writes no secret a daemon receives to any file of the sandbox, its snapshots or its logs", async () => {
    const master = randomBytes(24).toString("hex");
    const secrets = {
      openclawModelKey: mark("oc-model-key"),
      zeroclawModelKey: mark("zc-model-key"),
      userFromEnv: mark("user-from-env"),
      zeroclawGatewayToken: deriveKey(master, "agent/zeroclaw/gateway-token").toString("base64url"),
    };
    /** OpenClaw's gateway token is derived per sandbox from CLAWRUN_SECRET and never stored. */
    const gatewayToken = (sandboxId: string) =>
      deriveKey(master, `agent/openclaw/gateway-token/${sandboxId}`).toString("base64url");
    const envReportPort = await freePort();
    const agent = everyAgentsSecrets(master, secrets, envReportPort);
    // The daemon really gets every secret it is given (else the search below would prove
    // nothing) — but never a model key: those stay with ClawRun's model gateway.
    const given = Object.values({
      ...agent.daemon().env,
      ...agent.sandboxEnv?.("sbx_x"),
      ...agent.modelEnv?.("crm_x"),
    });
    expect(given).toEqual(expect.arrayContaining([secrets.userFromEnv, gatewayToken("sbx_x")]));
    expect(given).not.toContain(secrets.openclawModelKey);
    expect(given).not.toContain(secrets.zeroclawModelKey);

    h = await lifecycleHarness({
      // The agent section names a model: the sandbox gets a model credential for it.
      config: {
        agent: {
          type: "openclaw",
          provider: "openai",
          model: "gpt-test",
          apiKey: { fromEnv: "OC_KEY" },
        },
        sandbox: { activeDuration: 60 },
      },
      env: { CLAWRUN_SECRET: master },
      agent,
    });
    expect((await h.manager.wake({ reason: "start", trigger: "operator" })).status).toBe("running");
    const first = await h.provider.get((await h.status()).sandboxId as string);
    // The daemon runs with its secrets (read from its process environment, not a file).
    const reported = (await (await fetch(`http://127.0.0.1:${envReportPort}/`)).json()) as Record<
      string,
      string
    >;
    const daemonEnv = Object.entries(reported)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n");
    expect(daemonEnv).toContain(`MY_TOKEN=${secrets.userFromEnv}`);
    expect(daemonEnv).toContain(`OPENCLAW_GATEWAY_TOKEN=${gatewayToken(first.id)}`);
    const credential = /CLAWRUN_MODEL_API_KEY=(crm_\S+)/.exec(daemonEnv)?.[1];
    expect(credential).toBeDefined();
    expect(daemonEnv).not.toContain(secrets.openclawModelKey);
    expect(daemonEnv).not.toContain(secrets.zeroclawModelKey);
    expect(daemonEnv).not.toContain("CLAWRUN_DAEMON_ENV");

    expect((await h.manager.sleep("test")).status).toBe("sleeping");
    expect((await h.manager.wake({ reason: "wake", trigger: "operator" })).status).toBe("running");
    expect((await h.manager.sleep("again")).status).toBe("sleeping");

    const snapshots = await h.provider.listSnapshots();
    expect(snapshots.length).toBeGreaterThanOrEqual(2);
    const extracted: string[] = [];
    for (const file of filesUnder(join(h.stateDir, "snapshots"))) {
      const name = file.split("/").at(-1) ?? "";
      if (!name.startsWith("archive.tar")) continue;
      const dest = mkdtempSync(join(tmpdir(), "clawrun-secrets-"));
      dirs.push(dest);
      await extractArchive(file, dest, name.endsWith(".zst") ? "tar.zst" : "tar.gz");
      extracted.push(...filesUnder(dest));
    }
    // The archives held the sandbox's files, sidecar.json among them.
    expect(extracted.some((f) => f.endsWith(".clawrun/sidecar.json"))).toBe(true);
    expect(extracted.some((f) => f.endsWith(".openclaw/openclaw.json"))).toBe(true);

    const everything = [...filesUnder(h.stateDir), ...extracted];
    expect(everything.filter((f) => statSync(f).size > 0).length).toBeGreaterThan(10);
    // Every sandbox's own gateway token too (two boots: the start and the wake).
    const sandboxIds = new Set(
      (await h.store.events.list(500)).map((e) => e.sandboxId).filter((id) => id !== null),
    );
    expect(sandboxIds.size).toBeGreaterThanOrEqual(2);
    const tokens = Object.fromEntries(
      [...sandboxIds].map((id) => [`openclawGatewayToken(${id})`, gatewayToken(id as string)]),
    );
    expect(
      findSecrets(everything, { ...secrets, ...tokens, modelCredential: credential as string }),
    ).toEqual([]);
  });
});
