import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { problemsOf } from "../../../tests/support/problems-of";
import { ConfigError } from "../../config/load-config";
import { loadClawrunConfig as loadConfig, parseConfigText as parseConfig } from "./config-schema";

const problems = (text: string) => problemsOf(() => parseConfig(text), ConfigError);

describe("clawrun.json defaults", () => {
  it("fills every default from the seeds for an empty file", () => {
    const { config } = parseConfig("{}");
    expect(config).toEqual({
      instance: { name: "clawrun" },
      agent: { type: "echo", port: 3000, env: {} },
      sandbox: {
        provider: "local",
        activeDuration: 300,
        maxTurnDuration: 600,
        cronKeepAliveWindow: 900,
        cronWakeLeadTime: 60,
        resources: { vcpus: 2 },
        networkPolicy: "allow-all",
        tools: [],
      },
      cron: [],
      channels: { generic: {} },
      modelGateway: { allowUnpriced: false, prices: {}, timeoutMs: 120_000 },
    });
  });

  it("fills nested defaults of a partially written section", () => {
    const { config } = parseConfig(
      JSON.stringify({
        sandbox: { activeDuration: 60 },
        agent: { type: "command", command: "my-agent" },
      }),
    );
    expect(config.sandbox.cronKeepAliveWindow).toBe(900);
    expect(config.sandbox.activeDuration).toBe(60);
    expect(config.agent).toEqual({
      type: "command",
      command: "my-agent",
      args: [],
      env: {},
      port: 3000,
      delivery: { path: "/message", format: "json", timeoutMs: 30_000 },
      files: {},
    });
  });

  it("accepts comments, allow-lists, tools, cron and env references", () => {
    const { config } = parseConfig(`{
      // the instance
      "instance": { "name": "prod-1" }, /* block */
      "sandbox": { "networkPolicy": { "allow": ["api.openai.com"] },
                   "tools": [{ "name": "jq", "check": "jq --version", "install": ["apt-get install -y jq"] }] },
      "cron": [{ "name": "daily", "schedule": "0 9 * * 1-5", "message": "good morning // not a comment" }],
      "agent": { "type": "echo", "env": { "KEY": { "fromEnv": "OPENAI_API_KEY" }, "MODE": "fast" } }
    }`);
    expect(config.instance.name).toBe("prod-1");
    expect(config.sandbox.networkPolicy).toEqual({ allow: ["api.openai.com"] });
    expect(config.cron[0]?.message).toBe("good morning // not a comment");
    expect(config.agent.env.KEY).toEqual({ fromEnv: "OPENAI_API_KEY" });
  });
});

describe("clawrun.json rejects bad values with the key path", () => {
  it.each([
    [
      '{"sandbox":{"activeDuration":"5m"}}',
      'clawrun.json: sandbox.activeDuration: expected a positive integer, got "5m"',
    ],
    [
      '{"sandbox":{"activeDuration":0}}',
      "clawrun.json: sandbox.activeDuration: expected a positive integer, got 0",
    ],
    [
      '{"sandbox":{"activeDuration":1.5}}',
      "clawrun.json: sandbox.activeDuration: expected a positive integer, got 1.5",
    ],
    [
      '{"sandbox":{"provider":"aws"}}',
      'clawrun.json: sandbox.provider: expected "local" or "vercel", got "aws"',
    ],
    [
      '{"sandbox":{"networkPolicy":"none"}}',
      'clawrun.json: sandbox.networkPolicy: expected "allow-all", "deny-all" or { "allow": ["host", ...] }, got "none"',
    ],
    [
      '{"agent":{"type":"gpt"}}',
      'clawrun.json: agent.type: expected "echo", "command", "openclaw" or "zeroclaw", got "gpt"',
    ],
    [
      '{"agent":{"type":"command"}}',
      "clawrun.json: agent.command: expected the daemon's executable (a non-empty string), but it is missing",
    ],
    [
      '{"agent":{"type":"echo","port":70000}}',
      "clawrun.json: agent.port: expected a port number (1-65535), got 70000",
    ],
    [
      '{"cron":[{"name":"a","schedule":"every day","message":"hi"}]}',
      'clawrun.json: cron[0].schedule: expected a valid cron expression like "0 9 * * 1-5", got "every day"',
    ],
    [
      '{"channels":{"generic":{"replyUrl":"not a url"}}}',
      'clawrun.json: channels.generic.replyUrl: expected an http(s) URL, got "not a url"',
    ],
    [
      '{"sandbox":{"resources":{"vcpus":-1}}}',
      "clawrun.json: sandbox.resources.vcpus: expected a positive integer, got -1",
    ],
  ])("%s", (text, expected) => {
    expect(problems(text)).toEqual([expected]);
  });

  it("rejects unknown keys at any depth, naming them", () => {
    expect(problems('{"sandbox":{"activeDurration":10},"extra":true}')).toEqual([
      'clawrun.json: sandbox: unknown key "activeDurration" (not part of the schema)',
      'clawrun.json: unknown key "extra" (not part of the schema)',
    ]);
  });

  it("reports every problem at once, one line each", () => {
    const lines = problems(
      '{"sandbox":{"activeDuration":"x","cronWakeLeadTime":-5},"instance":{"name":"a b"}}',
    );
    expect(lines).toHaveLength(3);
  });

  it("explains invalid JSON", () => {
    expect(problems("{ nope")[0]).toMatch(/^clawrun.json: not valid JSON/);
  });
});

describe("loadConfig", () => {
  it("uses defaults when the file does not exist", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawrun-cfg-"));
    const loaded = loadConfig(join(dir, "clawrun.json"));
    expect(loaded.path).toBeNull();
    expect(loaded.config.sandbox.activeDuration).toBe(300);
  });

  it("reads and validates an existing file", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawrun-cfg-"));
    const file = join(dir, "clawrun.json");
    writeFileSync(file, '{"instance":{"name":"x"}}');
    expect(loadConfig(file).config.instance.name).toBe("x");
    writeFileSync(file, '{"instance":{"name":7}}');
    expect(() => loadConfig(file)).toThrow(/instance\.name: expected/);
  });
});

describe("clawrun.example.jsonc", () => {
  it("is a valid config (comments and all)", () => {
    const text = readFileSync("clawrun.example.jsonc", "utf8");
    const { config } = parseConfig(text, "clawrun.example.jsonc");
    expect(config.agent.type).toBe("command");
    expect(config.cron[0]?.name).toBe("morning");
  });

  it("shows valid OpenClaw and ZeroClaw sections in its comments", () => {
    const text = readFileSync("clawrun.example.jsonc", "utf8");
    // The commented `"agent": { ... },` blocks, uncommented.
    const blocks = [
      ...text.matchAll(/^ *\/\/ +"agent": \{\n(?:^ *\/\/ .*\n)*?^ *\/\/ +\},$/gm),
    ].map((m) => m[0].replace(/^ *\/\/ ?/gm, "").replace(/,$/, ""));
    const types = blocks.map((b) => parseConfig(`{${b}}`, "example").config.agent.type);
    expect(types).toEqual(["openclaw", "zeroclaw"]);
  });
});
