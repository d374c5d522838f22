import { describe, expect, it } from "vitest";
import { readEnv } from "../../config/env";
import { ConfigError } from "../../config/load-config";
import { parseConfigText } from "../compose/config-schema";
import { buildAgent } from "../compose/modules";
import { pairedTokenHash } from "./zeroclaw/config-file";

/**
 * The OpenClaw and ZeroClaw sections of clawrun.json, through the real schema and the real
 * composition-root builder: what a user may write, what is refused (and how it is named),
 * and what the built agent provisions.
 */

const MASTER = "m".repeat(48);
const env = (vars: Record<string, string> = {}) =>
  readEnv({ PATH: "/usr/bin:/bin", CLAWRUN_STATE_DIR: "/tmp/clawrun-unused", ...vars }, "/tmp");
const section = (agent: Record<string, unknown>) =>
  parseConfigText(JSON.stringify({ agent }), "clawrun.json").config;
const build = (
  agent: Record<string, unknown>,
  vars: Record<string, string> = { MY_KEY: "sk-secret-1" },
  master = MASTER,
) => buildAgent(section(agent), env(vars), "/tmp", master);

const problemsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error("expected a ConfigError");
};

const openai = { provider: "openai", model: "gpt-5.5", apiKey: { fromEnv: "MY_KEY" } };

describe.each(["openclaw", "zeroclaw"])("agent.type %s in clawrun.json", (type) => {
  it("needs only provider, model and key reference; everything else has defaults", () => {
    const { agent } = section({ type, ...openai });
    expect(agent).toMatchObject({
      type,
      ...openai,
      port: 3000,
      env: {},
      deliveryTimeoutMs: 300_000,
    });
  });

  it.each([
    [
      { provider: "gemini", model: "m", apiKey: { fromEnv: "K" } },
      /agent\.provider: expected provider "openai", "anthropic" or "openai-compatible", got "gemini"/,
    ],
    [
      { provider: "openai", model: "m" },
      /agent\.apiKey: expected \{ "fromEnv": "VARIABLE_NAME" \}/,
    ],
    [
      { provider: "openai", model: "m", apiKey: "sk-literal" },
      /agent\.apiKey: .*a key is never written in clawrun\.json/,
    ],
    [{ provider: "openai", apiKey: { fromEnv: "K" } }, /agent\.model: expected a model id/],
    [
      { provider: "openai-compatible", model: "m", apiKey: { fromEnv: "K" } },
      /agent\.baseUrl: expected the endpoint's http\(s\) base URL .* but it is missing/,
    ],
    [
      { provider: "openai", model: "m", apiKey: { fromEnv: "K" }, baseUrl: "https://x/v1" },
      /agent\.baseUrl: expected no baseUrl for provider "openai"/,
    ],
    [
      { provider: "anthropic", model: "m", apiKey: { fromEnv: "K" }, version: "1.0.0" },
      /agent: unknown key "version"/,
    ],
  ])("refuses %j, naming the key", (rest, message) => {
    expect(problemsOf(() => section({ type, ...rest })).join("\n")).toMatch(message);
  });

  it("refuses an unset key variable (or one of ClawRun's own secrets) when the agent is built, before any sandbox", () => {
    expect(problemsOf(() => build({ type, ...openai }, {}))).toEqual([
      "clawrun.json: agent.apiKey: environment variable MY_KEY is not set (or is one of ClawRun's own secrets); set it to the openai API key",
    ]);
    const own = { ...openai, apiKey: { fromEnv: "CLAWRUN_SECRET" } };
    expect(problemsOf(() => build({ type, ...own }, { CLAWRUN_SECRET: MASTER })).join()).toMatch(
      /CLAWRUN_SECRET is not set \(or is one of ClawRun's own secrets\)/,
    );
  });

  it("refuses an unset agent.env reference as a ConfigError too", () => {
    expect(
      problemsOf(() => build({ type, ...openai, env: { EXTRA: { fromEnv: "NOPE" } } })),
    ).toEqual(["clawrun.json: agent.env.EXTRA: environment variable NOPE is not set"]);
  });

  it("provisions its config file and a launcher, runs the launcher with the port, and describes itself", async () => {
    const agent = build({ type, ...openai, env: { EXTRA: "1" } });
    const files = await agent.files();
    expect(files.map((f) => f.path)).toEqual([
      type === "openclaw" ? ".openclaw/openclaw.json" : ".zeroclaw/config.toml",
      `.clawrun/${type}-launcher.sh`,
    ]);
    expect(files[1]?.mode).toBe(0o755);
    const daemon = agent.daemon();
    expect(daemon).toMatchObject({
      command: "sh",
      // ZeroClaw is told the loopback host to bind; OpenClaw's config file binds loopback.
      args:
        type === "zeroclaw"
          ? [`.clawrun/${type}-launcher.sh`, "{PORT}", "{HOST}"]
          : [`.clawrun/${type}-launcher.sh`, "{PORT}"],
      port: 3000,
    });
    expect(daemon.env.EXTRA).toBe("1");
    // The real model key is nowhere in the sandbox: not in the daemon's environment, not in
    // a file. The daemon gets the sandbox's credential for ClawRun's gateway instead.
    const env = { ...daemon.env, ...agent.sandboxEnv?.("sbx_1"), ...agent.modelEnv?.("crm_c") };
    expect(Object.values(env).join("\n")).not.toContain("sk-secret-1");
    expect(Object.values(env)).toContain("crm_c");
    for (const f of files) {
      expect(String(f.content)).not.toContain("sk-secret-1");
      expect(String(f.content)).not.toContain("crm_c");
    }
    expect(String(files[0]?.content)).toContain("http://127.0.0.1:3000/api/model");
    expect(agent.describe?.()).toEqual({
      type,
      version: type === "openclaw" ? "2026.9.6" : "0.8.3",
      model: "openai/gpt-5.5",
    });
    expect(agent.deliveryTimeoutMs).toBe(300_000);
    expect(agent.startupBudgetMs).toBeGreaterThan(60_000);
    expect(agent.ready).toBeTypeOf("function");
  });
});

describe("gateway tokens", () => {
  it("OpenClaw's token is derived from CLAWRUN_SECRET per sandbox: stable for one, different for another sandbox or deployment, in the sandbox env only", async () => {
    const tokenOf = (agent: ReturnType<typeof build>, sandboxId: string) =>
      agent.sandboxEnv?.(sandboxId).OPENCLAW_GATEWAY_TOKEN;
    const a = build({ type: "openclaw", ...openai });
    const token = tokenOf(a, "sbx_1") as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokenOf(build({ type: "openclaw", ...openai }), "sbx_1")).toBe(token);
    expect(tokenOf(a, "sbx_2")).not.toBe(token);
    const other = build({ type: "openclaw", ...openai }, undefined, "o".repeat(48));
    expect(tokenOf(other, "sbx_1")).not.toBe(token);
    expect(a.daemon().env.OPENCLAW_GATEWAY_TOKEN).toBeUndefined();
    for (const f of await a.files()) expect(String(f.content)).not.toContain(token);
  });

  it("ZeroClaw's config holds only the hash of its token; the two agents' tokens differ", async () => {
    const oc =
      build({ type: "openclaw", ...openai }).sandboxEnv?.("sbx_1").OPENCLAW_GATEWAY_TOKEN ?? "";
    const [config] = await build({ type: "zeroclaw", ...openai }).files();
    const hashes = /paired_tokens = \["([0-9a-f]{64})"\]/.exec(String(config?.content));
    expect(hashes?.[1]).toBeDefined();
    expect(hashes?.[1]).not.toBe(pairedTokenHash(oc));
  });
});

describe("OpenClaw specifics", () => {
  it("ignores its idle housekeeping writes (gateway database WAL/SHM, file log) but not its sessions", () => {
    const agent = build({ type: "openclaw", ...openai });
    expect(agent.activityIgnore).toEqual([
      ".openclaw/logs",
      ".openclaw/state/openclaw.sqlite-wal",
      ".openclaw/state/openclaw.sqlite-shm",
    ]);
    expect(agent.activityIgnore?.some((p) => p.includes("agents/main"))).toBe(false);
  });

  it("uses an absolute npm cache outside the sandbox when given one, and refuses a relative one", async () => {
    const agent = build({ type: "openclaw", ...openai, npmCacheDir: "/var/cache/oc" });
    const launcher = String((await agent.files())[1]?.content);
    expect(launcher).toContain("--cache '\\''/var/cache/oc'\\''");
    expect(launcher).not.toContain("rm -rf .cache/clawrun-npm");
    // npm runs third-party install scripts: they never see the key or the token.
    expect(launcher).toContain("env -u CLAWRUN_MODEL_API_KEY -u OPENCLAW_GATEWAY_TOKEN sh -c");
    expect(
      problemsOf(() => section({ type: "openclaw", ...openai, npmCacheDir: "cache" })).join(),
    ).toMatch(/agent\.npmCacheDir: expected an absolute directory path/);
  });

  it("writes the gateway's port and deadline-friendly settings from the section", async () => {
    const agent = build({
      type: "openclaw",
      provider: "openai-compatible",
      baseUrl: "http://10.0.0.1:4000/v1",
      model: "llama",
      apiKey: { fromEnv: "MY_KEY" },
      port: 3100,
      deliveryTimeoutMs: 60_000,
    });
    const config = JSON.parse(String((await agent.files())[0]?.content));
    expect(config.gateway.port).toBe(3100);
    // The endpoint is ClawRun's gateway, which forwards to the configured one.
    expect(config.models.providers.custom.baseUrl).toBe("http://127.0.0.1:3000/api/model/v1");
    expect(agent.deliveryTimeoutMs).toBe(60_000);
    expect(agent.describe?.().model).toBe("openai-compatible/llama");
  });
});

describe("ZeroClaw specifics", () => {
  it("lets its gateway run a turn as long as ClawRun waits for one, and keeps its state under the root", async () => {
    const agent = build({ type: "zeroclaw", ...openai, deliveryTimeoutMs: 90_500 });
    const [config, launcher] = await agent.files();
    expect(String(config?.content)).toContain("request_timeout_secs = 91");
    expect(String(launcher?.content)).toContain(
      `export ZEROCLAW_CONFIG_DIR="\${ZEROCLAW_CONFIG_DIR:-$root/.zeroclaw}"`,
    );
    expect(String(launcher?.content)).toContain(
      'exec "$root/.local/bin/zeroclaw" daemon -p "$1" --host "$2"',
    );
    expect(String(launcher?.content)).toContain(
      "env -u ZEROCLAW_providers__models__openai__clawrun__api_key sh -c",
    );
    // The key variable carries the sandbox's credential, given per boot; the daemon's own
    // environment holds nothing of the model.
    expect(agent.daemon().env).toEqual({});
    expect(agent.modelEnv?.("crm_c")).toEqual({
      ZEROCLAW_providers__models__openai__clawrun__api_key: "crm_c",
    });
    expect(String(config?.content)).toContain('uri = "http://127.0.0.1:3000/api/model/v1"');
  });
});
