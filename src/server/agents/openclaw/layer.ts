import type { LayerRecipe } from "../../layers/types";
import { assertPinnedVersion } from "../shell-quote";
import { PROVISION_DIR } from "../types";
import {
  installNodeCommand,
  installOpenclawCommand,
  OPENCLAW_NODE_VERSION,
  OPENCLAW_VERSION,
  versionPattern,
} from "./install-tool";

/**
 * OpenClaw's shared layer (DESIGN.md invariant 9; docs/agents/openclaw.md, "Layer"): Node and
 * the pinned `openclaw` package, built once per version by a provider with `sharedLayers`
 * and mounted read-only into each sandbox. The agent's state stays in the sandbox.
 */

/** Where the sandbox sees the layer (relative to its root). */
export const OPENCLAW_LAYER_MOUNT = `${PROVISION_DIR}/layer`;

/** Inside the layer: OpenClaw on its own Node, with no state of its own. */
export const LAYER_PATHS = {
  nodeDir: "node",
  nodeBin: "node/bin",
  openclawDir: "openclaw",
  entry: "openclaw/node_modules/openclaw/openclaw.mjs",
  wrapper: "bin/openclaw",
} as const;

/** Node's names for the architectures the registry's `node-linux-<arch>` packages exist for. */
const ARCHES: Record<string, string> = { x64: "x64", arm64: "arm64" };

/**
 * The layer's entry point. The layer is shared and holds no state, so the caller must name
 * the agent's state dir and config (the launcher sets both to the sandbox's); the Node and
 * package are found from the wrapper's own path, wherever the layer is mounted.
 */
function layerWrapper(): string {
  return [
    "#!/bin/sh",
    "# ClawRun's OpenClaw layer: the pinned OpenClaw on its own Node.",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not JS
    ': "${OPENCLAW_STATE_DIR:?the agent state dir must be set: the layer holds none}"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not JS
    ': "${OPENCLAW_CONFIG_PATH:?the agent config path must be set: the layer holds none}"',
    'layer=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)',
    `PATH="$layer/${LAYER_PATHS.nodeBin}:$PATH"`,
    "export PATH",
    `exec "$layer/${LAYER_PATHS.nodeBin}/node" "$layer/${LAYER_PATHS.entry}" "$@"`,
  ].join("\n");
}

export interface OpenClawLayerOptions {
  /** `process.arch` of the machine the layer is built on and run by. */
  arch: string;
  openclawVersion?: string;
  nodeVersion?: string;
  /** A warm npm cache for the build (absolute); not part of the layer's id. */
  npmCacheDir?: string;
}

/** Pure: the recipe of the OpenClaw layer. Commands run in the empty layer directory. */
export function openclawLayerRecipe(opts: OpenClawLayerOptions): LayerRecipe {
  const version = opts.openclawVersion ?? OPENCLAW_VERSION;
  const nodeVersion = opts.nodeVersion ?? OPENCLAW_NODE_VERSION;
  assertPinnedVersion("openclaw version", version);
  assertPinnedVersion("node version", nodeVersion);
  const arch = ARCHES[opts.arch];
  if (arch === undefined) throw new Error(`openclaw layer: unsupported architecture ${opts.arch}`);
  if (opts.npmCacheDir !== undefined && !opts.npmCacheDir.startsWith("/")) {
    throw new Error(
      `npmCacheDir: expected an absolute path, got ${JSON.stringify(opts.npmCacheDir)}`,
    );
  }
  const writeWrapper = [
    "mkdir -p bin",
    `cat > ${LAYER_PATHS.wrapper} <<'CLAWRUN_EOF'`,
    layerWrapper(),
    "CLAWRUN_EOF",
    `chmod 755 ${LAYER_PATHS.wrapper}`,
  ].join("\n");
  // The build's own check, with a throwaway state dir: a layer that cannot even say its
  // version is never published.
  const check = [
    "probe=$(mktemp -d) && trap 'rm -rf \"$probe\"' EXIT",
    `OPENCLAW_STATE_DIR="$probe" OPENCLAW_CONFIG_PATH="$probe/openclaw.json" ${LAYER_PATHS.wrapper} --version | grep -E '${versionPattern(version)}'`,
  ].join("\n");
  return {
    name: "openclaw",
    inputs: { openclaw: version, node: nodeVersion, arch },
    build: [
      installNodeCommand({ ...LAYER_PATHS, nodeVersion, cacheFlag: "" }),
      installOpenclawCommand({ ...LAYER_PATHS, version, cacheFlag: "" }),
      writeWrapper,
      check,
    ],
    mountAt: OPENCLAW_LAYER_MOUNT,
    ...(opts.npmCacheDir === undefined ? {} : { buildEnv: { npm_config_cache: opts.npmCacheDir } }),
  };
}

/**
 * Pure: launcher lines for both homes of OpenClaw. The state dir and config are always the
 * sandbox's, named explicitly (the layer lives elsewhere). With a layer mounted, the gateway
 * starts from it at once; without one (a provider without shared layers) the launcher goes
 * on to its check-and-install path.
 */
export function layerLauncherPrelude(): string[] {
  const wrapper = `${OPENCLAW_LAYER_MOUNT}/${LAYER_PATHS.wrapper}`;
  return [
    'export OPENCLAW_STATE_DIR="$root/.openclaw"',
    'export OPENCLAW_CONFIG_PATH="$OPENCLAW_STATE_DIR/openclaw.json"',
    // No update check at start (the config says so too; this also covers the launcher path).
    "export OPENCLAW_NO_AUTO_UPDATE=1",
    `if [ -x "${wrapper}" ]; then`,
    `  exec "$root/${wrapper}" gateway --port "$1"`,
    "fi",
  ];
}
