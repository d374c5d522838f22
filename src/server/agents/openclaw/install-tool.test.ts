import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  OPENCLAW_NODE_VERSION,
  OPENCLAW_VERSION,
  openclawPaths,
  openclawTool,
} from "./install-tool";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempRoot(): string {
  const d = mkdtempSync(join(tmpdir(), "openclaw-tool-"));
  dirs.push(d);
  return d;
}
function sh(command: string, cwd: string) {
  const r = spawnSync("sh", ["-c", command], { cwd, encoding: "utf8" });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}
function writeExecutable(path: string, body: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, body);
  chmodSync(path, 0o755);
}

describe("openclawTool", () => {
  it("pins both versions and keeps its npm cache out of the sandbox when given one", () => {
    const tool = openclawTool({ npmCacheDir: "/var/cache/clawrun/npm-openclaw" });
    expect(tool.name).toBe("openclaw");
    const all = tool.install.join("\n");
    expect(all).toContain(`"node-linux-$arch@${OPENCLAW_NODE_VERSION}"`);
    expect(all).toContain(`openclaw@${OPENCLAW_VERSION}`);
    expect(all).toContain("--cache '/var/cache/clawrun/npm-openclaw'");
    expect(all).not.toContain("rm -rf");
    // npm with --prefix or on the new Node would miss the sandbox npm's global npmrc (registry, CA).
    expect(tool.install[0]).toContain(
      'globalconfig=$(npm config get globalconfig)\nnpm install --globalconfig "$globalconfig" --prefix',
    );
    expect(tool.install[1]).toMatch(
      /^globalconfig=\$\(npm config get globalconfig\) && .* npm install --globalconfig "\$globalconfig" /,
    );
  });

  it("uses a cache inside the sandbox by default and removes it afterwards", () => {
    const tool = openclawTool();
    expect(tool.install.join("\n")).toContain("--cache '.cache/clawrun-npm'");
    expect(tool.install.at(-1)).toBe("rm -rf .cache/clawrun-npm");
  });

  it.each([
    [{ openclawVersion: "latest" }, /openclaw version: expected a pinned version/],
    [{ nodeVersion: "24; rm -rf /" }, /node version: expected a pinned version/],
    [{ npmCacheDir: "relative/cache" }, /npmCacheDir: expected an absolute path/],
  ])("refuses %j", (opts, message) => {
    expect(() => openclawTool(opts)).toThrow(message);
  });

  it("check passes only for the pinned version", () => {
    const root = tempRoot();
    const { check } = openclawTool();
    expect(sh(check, root).code).not.toBe(0); // nothing installed
    const wrapper = join(root, ".local/bin/openclaw");
    writeExecutable(wrapper, `#!/bin/sh\necho "OpenClaw ${OPENCLAW_VERSION}0 (abc)"\n`);
    expect(sh(check, root).code).not.toBe(0);
    writeExecutable(wrapper, `#!/bin/sh\necho "OpenClaw ${OPENCLAW_VERSION} (eb377ac)"\n`);
    expect(sh(check, root).code).toBe(0);
  });

  it("writes a wrapper that runs the pinned entry on its Node with state in the sandbox, wherever the tree is restored", () => {
    const root = tempRoot();
    const paths = openclawPaths(OPENCLAW_VERSION, OPENCLAW_NODE_VERSION);
    // A stand-in `node` that reports how it was called.
    writeExecutable(
      join(root, paths.nodeBin, "node"),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not JS
      '#!/bin/sh\necho "node=$0"; echo "args=$*"; echo "state=$OPENCLAW_STATE_DIR"; echo "config=$OPENCLAW_CONFIG_PATH"; echo "path1=${PATH%%:*}"\n',
    );
    const writeWrapper = openclawTool().install[2] ?? "";
    expect(sh(writeWrapper, root).code).toBe(0);

    // Moved elsewhere, as a snapshot restored into another sandbox directory would be.
    const moved = join(tempRoot(), "restored");
    cpSync(root, moved, { recursive: true });
    const run = spawnSync(join(moved, paths.wrapper), ["gateway", "--port", "3000"], {
      cwd: tmpdir(),
      encoding: "utf8",
      env: { PATH: "/usr/bin:/bin" } as unknown as NodeJS.ProcessEnv,
    });
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split("\n")).toEqual([
      `node=${moved}/${paths.nodeBin}/node`,
      `args=${moved}/${paths.entry} gateway --port 3000`,
      `state=${moved}/.openclaw`,
      `config=${moved}/.openclaw/openclaw.json`,
      `path1=${moved}/${paths.nodeBin}`,
    ]);
  });
});
