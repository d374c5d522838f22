import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { removeDir, tempDir } from "../../tests/support/sidecar-harness";
import { SIDECAR_TIMINGS } from "../protocol/sidecar-config";
import { ConfigError, loadConfig } from "./load-config";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

const ENV = { CLAWRUN_HB_SECRET: "secret-secret" };

function file(content: string): { path: string; root: string } {
  const root = tempDir();
  dirs.push(root);
  const path = join(root, "config.json");
  writeFileSync(path, content);
  return { path, root };
}

function valid(root: string): Record<string, unknown> {
  return {
    sandboxId: "sbx_1",
    root,
    sandboxCreatedAt: 1,
    parentUrl: "http://127.0.0.1:3000",
    daemon: { command: "zeroclaw", args: ["serve", "--port", "{PORT}"] },
  };
}

describe("loadConfig", () => {
  it("applies the seed defaults", () => {
    const { path, root } = file("");
    writeFileSync(path, JSON.stringify(valid(root)));
    const loaded = loadConfig(path, ENV);
    expect(loaded.secret).toBe("secret-secret");
    expect(loaded.timings).toEqual(SIDECAR_TIMINGS);
    expect(loaded.config).toMatchObject({ healthPort: 3001, daemon: { port: 3000 }, tools: [] });
  });

  it("takes the daemon's environment from CLAWRUN_DAEMON_ENV, in memory only (issue 22, item 1)", () => {
    const { path, root } = file("");
    writeFileSync(
      path,
      JSON.stringify({ ...valid(root), daemon: { command: "x", env: { A: "1", B: "file" } } }),
    );
    const daemonEnv = JSON.stringify({ B: "env", MODEL_KEY: "sk-in-memory" });
    const loaded = loadConfig(path, { ...ENV, CLAWRUN_DAEMON_ENV: daemonEnv });
    expect(loaded.config.daemon.env).toEqual({ A: "1", B: "env", MODEL_KEY: "sk-in-memory" });
    expect(loaded.daemonEnv).toEqual({ B: "env", MODEL_KEY: "sk-in-memory" });
    expect(() => loadConfig(path, { ...ENV, CLAWRUN_DAEMON_ENV: "{nope" })).toThrow(
      /CLAWRUN_DAEMON_ENV: not JSON/,
    );
    expect(() => loadConfig(path, { ...ENV, CLAWRUN_DAEMON_ENV: '{"A":1}' })).toThrow(
      /CLAWRUN_DAEMON_ENV: .*A: expected string, got number/,
    );
  });

  it.each([
    ["no argument", undefined, /usage: node sidecar.js <config.json>/],
    ["a missing file", "/nonexistent/config.json", /cannot read config .*ENOENT/],
  ])("rejects %s", (_n, path, message) => {
    expect(() => loadConfig(path, ENV)).toThrow(message);
  });

  it("rejects malformed JSON, schema errors, a missing root and a missing secret", () => {
    const { path, root } = file("{nope");
    expect(() => loadConfig(path, ENV)).toThrow(/is not JSON/);
    writeFileSync(path, JSON.stringify({ ...valid(root), parentUrl: "not a url" }));
    expect(() => loadConfig(path, ENV)).toThrow(
      /invalid config .*parentUrl: expected an http\(s\) URL/,
    );
    writeFileSync(path, JSON.stringify({ ...valid(root), extra: 1 }));
    expect(() => loadConfig(path, ENV)).toThrow(/invalid config .*unknown key "extra"/);
    writeFileSync(path, JSON.stringify({ ...valid(root), daemon: { command: "x", args: [1] } }));
    expect(() => loadConfig(path, ENV)).toThrow(/daemon\.args\[0\]: expected string, got number/);
    writeFileSync(path, JSON.stringify({ ...valid(root), timings: { restartDelayMs: 0 } }));
    expect(() => loadConfig(path, ENV)).toThrow(/timings\.restartDelayMs: expected number/);
    writeFileSync(path, JSON.stringify({ ...valid(root), root: join(root, "nope") }));
    expect(() => loadConfig(path, ENV)).toThrow(/is not a directory/);
    writeFileSync(path, JSON.stringify(valid(root)));
    expect(() => loadConfig(path, {})).toThrow(ConfigError);
    expect(() => loadConfig(path, { CLAWRUN_HB_SECRET: "" })).toThrow(
      /CLAWRUN_HB_SECRET is not set/,
    );
  });
});
