import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { layerId } from "../../layers/layer-id";
import { launcherPath, launcherScript } from "../launcher";
import { OPENCLAW_NODE_VERSION, OPENCLAW_VERSION, openclawTool } from "./install-tool";
import {
  LAYER_PATHS,
  layerLauncherPrelude,
  OPENCLAW_LAYER_MOUNT,
  openclawLayerRecipe,
} from "./layer";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function temp(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}
function writeExecutable(path: string, body: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, body);
  chmodSync(path, 0o755);
}

describe("openclawLayerRecipe", () => {
  it("pins both versions and the arch, installs into the layer, and keeps the npm cache out of its id", () => {
    const recipe = openclawLayerRecipe({ arch: "x64" });
    expect(recipe.inputs).toEqual({
      openclaw: OPENCLAW_VERSION,
      node: OPENCLAW_NODE_VERSION,
      arch: "x64",
    });
    expect(recipe.mountAt).toBe(".clawrun/layer");
    const all = recipe.build.join("\n");
    expect(all).toContain(`--prefix node `);
    expect(all).toContain(`--prefix openclaw `);
    expect(all).toContain(`openclaw@${OPENCLAW_VERSION}`);
    expect(all).not.toContain("--cache");
    const cached = openclawLayerRecipe({ arch: "x64", npmCacheDir: "/var/cache/npm" });
    expect(cached.buildEnv).toEqual({ npm_config_cache: "/var/cache/npm" });
    expect(layerId(cached)).toBe(layerId(recipe));
    expect(layerId(openclawLayerRecipe({ arch: "arm64" }))).not.toBe(layerId(recipe));
  });

  it.each([
    [{ arch: "ia32" }, /unsupported architecture/],
    [{ arch: "x64", openclawVersion: "latest" }, /expected a pinned version/],
    [{ arch: "x64", npmCacheDir: "rel" }, /absolute path/],
  ])("refuses %j", (opts, message) => {
    expect(() => openclawLayerRecipe(opts)).toThrow(message);
  });

  it("its wrapper runs the layer's OpenClaw on the layer's Node, and refuses to run without the agent's state dir", () => {
    const layer = temp("oc-layer-");
    writeExecutable(
      join(layer, LAYER_PATHS.nodeBin, "node"),
      '#!/bin/sh\necho "node=$0"; echo "args=$*"; echo "state=$OPENCLAW_STATE_DIR"\n',
    );
    const writeWrapper = openclawLayerRecipe({ arch: "x64" }).build[2] ?? "";
    expect(spawnSync("sh", ["-c", writeWrapper], { cwd: layer }).status).toBe(0);
    // Seen through a link, as a sandbox sees it.
    const root = temp("oc-root-");
    mkdirSync(join(root, ".clawrun"));
    symlinkSync(layer, join(root, OPENCLAW_LAYER_MOUNT));
    const wrapper = join(root, OPENCLAW_LAYER_MOUNT, LAYER_PATHS.wrapper);
    const env = {
      PATH: "/usr/bin:/bin",
      OPENCLAW_STATE_DIR: `${root}/.openclaw`,
      OPENCLAW_CONFIG_PATH: `${root}/.openclaw/openclaw.json`,
    };
    const ok = spawnSync(wrapper, ["gateway", "--port", "3000"], {
      encoding: "utf8",
      env: env as unknown as NodeJS.ProcessEnv,
    });
    expect(ok.stdout.trim().split("\n")).toEqual([
      `node=${root}/${OPENCLAW_LAYER_MOUNT}/${LAYER_PATHS.nodeBin}/node`,
      `args=${root}/${OPENCLAW_LAYER_MOUNT}/${LAYER_PATHS.entry} gateway --port 3000`,
      `state=${root}/.openclaw`,
    ]);
    const bare = spawnSync(wrapper, ["--version"], {
      encoding: "utf8",
      env: { PATH: "/usr/bin:/bin" } as unknown as NodeJS.ProcessEnv,
    });
    expect(bare.status).not.toBe(0);
    expect(bare.stderr).toContain("the agent state dir must be set");
  });
});

describe("the OpenClaw launcher with and without a layer", () => {
  function launcher(root: string): string {
    const path = join(root, launcherPath("openclaw"));
    writeExecutable(
      path,
      launcherScript({
        name: "openclaw",
        tool: openclawTool(),
        prelude: layerLauncherPrelude(),
        exec: 'echo "installed path $1"',
      }),
    );
    return path;
  }

  it("with a layer mounted: starts the gateway from it at once, with the sandbox's state dir and config", () => {
    const root = temp("oc-root-");
    const layer = temp("oc-layer-");
    writeExecutable(
      join(layer, LAYER_PATHS.wrapper),
      '#!/bin/sh\necho "layer $*"; echo "state=$OPENCLAW_STATE_DIR"; echo "config=$OPENCLAW_CONFIG_PATH"; echo "noupdate=$OPENCLAW_NO_AUTO_UPDATE"\n',
    );
    const path = launcher(root);
    symlinkSync(layer, join(root, OPENCLAW_LAYER_MOUNT));
    const r = spawnSync("sh", [path, "3000"], {
      cwd: tmpdir(),
      encoding: "utf8",
      env: { PATH: "/usr/bin:/bin" } as unknown as NodeJS.ProcessEnv,
    });
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split("\n")).toEqual([
      "layer gateway --port 3000",
      `state=${root}/.openclaw`,
      `config=${root}/.openclaw/openclaw.json`,
      "noupdate=1",
    ]);
  });

  it("without a layer: goes on to the check and the in-sandbox install (providers without shared layers)", () => {
    const root = temp("oc-root-");
    // A stand-in that passes the check, so nothing is really installed.
    writeExecutable(
      join(root, ".local/bin/openclaw"),
      `#!/bin/sh\necho "OpenClaw ${OPENCLAW_VERSION} (x)"\n`,
    );
    const r = spawnSync("sh", [launcher(root), "3000"], {
      encoding: "utf8",
      env: { PATH: "/usr/bin:/bin" } as unknown as NodeJS.ProcessEnv,
    });
    expect(r.stdout.trim()).toBe("installed path 3000");
  });
});
