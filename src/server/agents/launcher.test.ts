import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { launcherPath, launcherScript } from "./launcher";

// The launcher runs as a real `sh` process in a temporary sandbox root, as the sidecar's
// supervisor runs it (cwd = root, the port as $1).

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A tool whose install writes `.local/bin/fake` (counting installs) and whose check runs it. */
const fakeTool = {
  name: "fake",
  check: ".local/bin/fake --version | grep -q '^fake 1.0'",
  install: [
    "mkdir -p .local/bin && echo x >> installs.log",
    "printf '#!/bin/sh\\necho \"fake 1.0 args=$*\"\\n' > .local/bin/fake && chmod 755 .local/bin/fake",
  ],
};

function run(script: string, port = "4242") {
  const root = mkdtempSync(join(tmpdir(), "launcher-"));
  roots.push(root);
  const path = join(root, launcherPath("fake"));
  mkdirSync(join(root, ".clawrun"));
  writeFileSync(path, script, { mode: 0o755 });
  const go = () =>
    spawnSync("sh", [launcherPath("fake"), port], {
      cwd: root,
      env: { PATH: process.env.PATH } as unknown as NodeJS.ProcessEnv,
      encoding: "utf8",
    });
  return { root, go };
}

describe("launcherScript", () => {
  it("installs when the check fails, then execs the agent with the port; a second start skips the install", () => {
    const { root, go } = run(
      launcherScript({ name: "fake", tool: fakeTool, exec: '"$root/.local/bin/fake" serve "$1"' }),
    );
    const first = go();
    expect(first.status).toBe(0);
    expect(first.stdout).toContain("clawrun launcher: fake is not installed: installing it");
    expect(first.stdout).toMatch(/clawrun launcher: fake installed in \d+ s/);
    expect(first.stdout.trim().split("\n").at(-1)).toBe("fake 1.0 args=serve 4242");

    const second = go();
    expect(second.status).toBe(0);
    expect(second.stdout.trim()).toBe("fake 1.0 args=serve 4242");
    expect(readFileSync(join(root, "installs.log"), "utf8")).toBe("x\n");
  });

  it("runs from the sandbox root whatever the caller's directory, after the prelude", () => {
    const { root } = run("");
    const script = launcherScript({
      name: "fake",
      tool: { name: "fake", check: "true", install: ["true"] },
      prelude: ['export WHERE="$root/state"'],
      exec: "sh -c 'echo \"pwd=$(pwd) where=$WHERE\"'",
    });
    writeFileSync(join(root, launcherPath("fake")), script);
    const res = spawnSync("sh", [join(root, launcherPath("fake"))], {
      cwd: tmpdir(),
      env: { PATH: process.env.PATH } as unknown as NodeJS.ProcessEnv,
      encoding: "utf8",
    });
    expect(res.stdout.trim()).toBe(`pwd=${root} where=${root}/state`);
  });

  it("stops with the failing step and its exit code, and never starts the agent", () => {
    const { root, go } = run(
      launcherScript({
        name: "fake",
        tool: {
          ...fakeTool,
          install: ["echo partial > step1", "echo 'registry down' >&2; exit 7"],
        },
        exec: "touch started",
      }),
    );
    const res = go();
    expect(res.status).toBe(1);
    expect(res.stderr).toContain("registry down");
    expect(res.stderr).toContain("clawrun launcher: fake install step 2/2 failed (exit 7)");
    expect(existsSync(join(root, "step1"))).toBe(true);
    expect(existsSync(join(root, "started"))).toBe(false);
  });

  it("refuses to start when the install succeeds but the check still fails", () => {
    const { root, go } = run(
      launcherScript({
        name: "fake",
        tool: { name: "fake", check: "false", install: ["true"] },
        exec: "touch started",
      }),
    );
    const res = go();
    expect(res.status).toBe(1);
    expect(res.stderr).toContain(
      "clawrun launcher: fake install finished but its check still fails",
    );
    expect(existsSync(join(root, "started"))).toBe(false);
  });

  it("hides the named daemon variables from the install, not from the check or the agent", () => {
    const { root } = run("");
    const script = launcherScript({
      name: "fake",
      tool: {
        name: "fake",
        check: "test -f seen",
        install: ['echo "install saw [$SECRET_KEY] [$PLAIN]" > seen'],
      },
      exec: `sh -c 'echo "agent saw [$SECRET_KEY]"; cat seen'`,
      hideFromInstall: ["SECRET_KEY"],
    });
    writeFileSync(join(root, launcherPath("fake")), script);
    const res = spawnSync("sh", [launcherPath("fake")], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        SECRET_KEY: "sk-1",
        PLAIN: "p",
      } as unknown as NodeJS.ProcessEnv,
      encoding: "utf8",
    });
    expect(res.stdout.trim().split("\n").slice(-2)).toEqual([
      "agent saw [sk-1]",
      "install saw [] [p]",
    ]);
    expect(() =>
      launcherScript({ name: "x", tool: fakeTool, exec: "true", hideFromInstall: ["A; rm -rf /"] }),
    ).toThrow(/hideFromInstall: expected variable names/);
  });

  it("quotes tool commands so their quotes and variables reach `sh -c` unchanged", () => {
    const { root, go } = run(
      launcherScript({
        name: "fake",
        tool: {
          name: "fake",
          check: "test -f marker",
          install: ["x='it'\"'\"'s'; echo \"$x $HOME\" > marker"],
        },
        exec: "cat marker",
      }),
    );
    const res = spawnSync("sh", [launcherPath("fake")], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: "/home/zed" } as unknown as NodeJS.ProcessEnv,
      encoding: "utf8",
    });
    expect(res.stdout.trim().split("\n").at(-1)).toBe("it's /home/zed");
    expect(go().status).toBe(0);
  });
});
