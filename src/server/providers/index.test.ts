import pino from "pino";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../config/load-config";
import { parseConfigText } from "../compose/config-schema";
import { findProvider, PROVIDERS } from ".";
import { LocalProvider } from "./local/local-provider";

describe("provider list", () => {
  it("builds the local provider from its module with the context it is given", () => {
    const module = findProvider("local");
    expect(module).toBeDefined();
    const provider = module?.create({
      config: module.configSchema.parse({}),
      env: {},
      instance: "clawrun",
      stateDir: "/tmp/clawrun-registry-test",
      agentStateDir: "/tmp/clawrun-registry-test",
      logger: pino({ level: "silent" }),
      hostEnv: { PATH: "/usr/bin:/bin" },
    });
    expect(provider).toBeInstanceOf(LocalProvider);
    expect(provider?.name).toBe("local");
    expect(provider?.capabilities.restoreAnySnapshot).toBe(true);
    expect(module?.capabilities(module.configSchema.parse({}))).toEqual(provider?.capabilities);
  });

  it("prices local sandboxes at nothing, with no rates", () => {
    const c = findProvider("local")?.cost?.({
      vcpus: 2,
      awakeMs: 3_600_000,
      created: 1,
      snapshotBytes: 1024 ** 3,
      elapsedMs: 3_600_000,
      monthMs: 30 * 24 * 3_600_000,
    });
    expect(c?.lines).toEqual([
      { label: "Sandbox (local)", quantity: "runs on this machine", usd: 0 },
    ]);
    expect(c?.alwaysOnUsd).toBe(0);
    expect(c?.rates).toEqual([]);
  });

  it("has unique names and finds nothing for an unknown one", () => {
    const names = PROVIDERS.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    expect(findProvider("nope")).toBeUndefined();
  });

  it("names the built-in providers when clawrun.json asks for an unknown one", () => {
    const q = PROVIDERS.map((p) => `"${p.name}"`);
    const names = q.length > 1 ? `${q.slice(0, -1).join(", ")} or ${q.at(-1)}` : q[0];
    expect(() => parseConfigText(JSON.stringify({ sandbox: { provider: "nope" } }))).toThrow(
      ConfigError,
    );
    expect(() => parseConfigText(JSON.stringify({ sandbox: { provider: "nope" } }))).toThrow(
      `sandbox.provider: expected ${names}, got "nope"`,
    );
  });

  it("gives each provider its own clawrun.json section with defaults", () => {
    const { config } = parseConfigText(JSON.stringify({ sandbox: { local: { keepStopped: 5 } } }));
    expect(config.sandbox.local).toEqual({ keepStopped: 5 });
    expect(() =>
      parseConfigText(JSON.stringify({ sandbox: { local: { keepStopped: "many" } } })),
    ).toThrow("sandbox.local.keepStopped: expected a positive integer");
  });
});
