import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryLog, removeDir, tempDir } from "../../tests/support/sidecar-harness";
import { buildChildEnv } from "./daemon-env";
import { type InstallToolsOptions, installTools } from "./tools";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

function setup(overrides: Partial<InstallToolsOptions> = {}) {
  const root = tempDir();
  dirs.push(root);
  const log = new MemoryLog();
  const opts: InstallToolsOptions = {
    tools: [],
    cwd: root,
    env: buildChildEnv({ base: process.env, root }),
    attempts: 3,
    retryDelayMs: 50,
    log,
    ...overrides,
  };
  return { root, log, opts };
}

describe("installTools", () => {
  it("gives up on a tool whose install fails 3 times, with a warning, and carries on", async () => {
    const { log, opts, root } = setup();
    opts.tools = [
      { name: "broken", check: "false", install: ["echo try >> attempts.log", "exit 7"] },
      { name: "after", check: "true", install: ["echo never > after.log"] },
    ];
    const started = Date.now();
    const outcome = await installTools(opts);
    expect(outcome).toEqual({ broken: "failed", after: "present" });
    expect(readFileSync(join(root, "attempts.log"), "utf8")).toBe("try\ntry\ntry\n");
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * 50); // retryDelayMs between attempts
    expect(log.has(/WARN tool broken: attempt 3\/3 failed: `exit 7` exited with 7/)).toBe(true);
    expect(log.has(/WARN tool broken: not installed after 3 attempts; continuing without it/)).toBe(
      true,
    );
  });

  it("does not install a tool whose check passes", async () => {
    const { opts, root, log } = setup();
    opts.tools = [{ name: "sh", check: "command -v sh", install: ["touch installed"] }];
    expect(await installTools(opts)).toEqual({ sh: "present" });
    expect(existsSync(join(root, "installed"))).toBe(false);
    expect(log.has(/tool sh: present/)).toBe(true);
  });

  it("installs into ~/.local/bin, which is on PATH, and confirms with the check", async () => {
    const { opts } = setup();
    opts.tools = [
      {
        name: "hello",
        check: "hello-tool",
        install: [
          "mkdir -p .local/bin",
          "printf '#!/bin/sh\\necho hi\\n' > .local/bin/hello-tool && chmod +x .local/bin/hello-tool",
        ],
      },
    ];
    expect(await installTools(opts)).toEqual({ hello: "installed" });
  });

  it("retries until an attempt succeeds", async () => {
    const { opts } = setup();
    // Fails on the first attempt only (the marker exists from the second on).
    opts.tools = [
      {
        name: "flaky",
        check: "test -f ok",
        install: ["test -f tried && touch ok; touch tried; test -f ok"],
      },
    ];
    expect(await installTools(opts)).toEqual({ flaky: "installed" });
  });

  it("stops at once when aborted", async () => {
    const controller = new AbortController();
    const { opts } = setup({ signal: controller.signal, retryDelayMs: 10_000 });
    opts.tools = [{ name: "slow", check: "false", install: ["exit 1"] }];
    const started = Date.now();
    const run = installTools(opts);
    setTimeout(() => controller.abort(), 100);
    expect(await run).toEqual({ slow: "aborted" });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
