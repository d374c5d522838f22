import type { ToolSpec } from "../../../config/schema";
import { assertPinnedVersion, shellQuote } from "../shell-quote";

/**
 * The pinned versions (docs/agents/openclaw.md). OpenClaw 2026.9.6 requires Node
 * `>=24.16.0 <25 || >=26.1.0` and its preinstall script refuses older ones, so Node comes
 * from the registry's `node-linux-<arch>` package, installed first.
 */
export const OPENCLAW_VERSION = "2026.9.6";
export const OPENCLAW_NODE_VERSION = "24.22.3";

export interface OpenClawToolOptions {
  openclawVersion?: string;
  nodeVersion?: string;
  /**
   * npm cache directory (absolute). When unset, a cache inside the sandbox is used and
   * removed after the install, so it never lands in a snapshot.
   */
  npmCacheDir?: string;
}

/** Where the tool puts things, relative to the sandbox root (= the agent's HOME). */
export function openclawPaths(openclawVersion: string, nodeVersion: string) {
  const nodeDir = `.local/lib/node-${nodeVersion}`;
  const openclawDir = `.local/lib/openclaw-${openclawVersion}`;
  return {
    nodeDir,
    /** A stable link to `node_modules/node-linux-<arch>/bin`, so nothing else needs the arch. */
    nodeBin: `${nodeDir}/bin`,
    openclawDir,
    entry: `${openclawDir}/node_modules/openclaw/openclaw.mjs`,
    wrapper: ".local/bin/openclaw",
  };
}

const SANDBOX_CACHE = ".cache/clawrun-npm";
const NPM_FLAGS = "--no-audit --no-fund --no-save --loglevel=error";

/** `^OpenClaw 2026\.9\.6( |$)`: what `openclaw --version` prints first for the pinned version. */
export function versionPattern(version: string): string {
  return `^OpenClaw ${version.replaceAll(".", "\\.")}( |$)`;
}

/**
 * The wrapper on PATH: runs the pinned OpenClaw on its own Node, and keeps OpenClaw's state
 * and config inside the sandbox root whatever HOME is, found from the wrapper's own location
 * so a snapshot restored under another path still works.
 */
function wrapperScript(paths: ReturnType<typeof openclawPaths>): string {
  return [
    "#!/bin/sh",
    "# Written by ClawRun's openclaw tool.",
    'root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not JS
    'export OPENCLAW_STATE_DIR="${OPENCLAW_STATE_DIR:-$root/.openclaw}"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not JS
    'export OPENCLAW_CONFIG_PATH="${OPENCLAW_CONFIG_PATH:-$OPENCLAW_STATE_DIR/openclaw.json}"',
    `PATH="$root/${paths.nodeBin}:$PATH"`,
    "export PATH",
    `exec "$root/${paths.nodeBin}/node" "$root/${paths.entry}" "$@"`,
  ].join("\n");
}

/**
 * npm reads its global npmrc from `<prefix>/etc/npmrc`, and both `--prefix` and a node
 * elsewhere move that, losing the sandbox npm's registry and CA settings (a TLS-inspecting
 * proxy then fails with SELF_SIGNED_CERT_IN_CHAIN): so each command asks the caller's own
 * npm where its global npmrc is and passes it on.
 */
const GLOBALCONFIG = "globalconfig=$(npm config get globalconfig)";

/**
 * Pure: installs `node-linux-<arch>@nodeVersion` into the npm prefix `nodeDir` with a stable
 * `nodeBin` link, and checks the binary's version. Paths are relative to the cwd.
 */
export function installNodeCommand(p: {
  nodeDir: string;
  nodeBin: string;
  nodeVersion: string;
  /** `--cache <dir>`, or "" for npm's own (`npm_config_cache` or ~/.npm). */
  cacheFlag: string;
}): string {
  return [
    "set -e",
    'case "$(uname -m)" in x86_64|amd64) arch=x64 ;; aarch64|arm64) arch=arm64 ;;',
    '  *) echo "openclaw tool: unsupported architecture $(uname -m)" >&2; exit 1 ;; esac',
    GLOBALCONFIG,
    `npm install --globalconfig "$globalconfig" --prefix ${p.nodeDir} ${NPM_FLAGS} ${p.cacheFlag} "node-linux-$arch@${p.nodeVersion}"`,
    `ln -sfn "node_modules/node-linux-$arch/bin" ${p.nodeBin}`,
    `${p.nodeBin}/node --version | grep -qx v${p.nodeVersion.replaceAll(".", "\\.")}`,
  ].join("\n");
}

/** Pure: installs `openclaw@version` into the npm prefix `openclawDir`, npm running on that Node. */
export function installOpenclawCommand(p: {
  nodeBin: string;
  openclawDir: string;
  version: string;
  cacheFlag: string;
}): string {
  // npm runs on the new Node, so OpenClaw's preinstall engine check passes.
  return [
    GLOBALCONFIG,
    `PATH="$PWD/${p.nodeBin}:$PATH" npm install --globalconfig "$globalconfig" --prefix ${p.openclawDir} ${NPM_FLAGS} ${p.cacheFlag} openclaw@${p.version}`,
  ].join(" && ");
}

/**
 * Pure: the sandbox tool that installs Node + OpenClaw at pinned versions into the sandbox
 * root. Commands run with cwd = sandbox root (src/sidecar/tools.ts); each is safe to rerun.
 */
export function openclawTool(opts: OpenClawToolOptions = {}): ToolSpec {
  const version = opts.openclawVersion ?? OPENCLAW_VERSION;
  const nodeVersion = opts.nodeVersion ?? OPENCLAW_NODE_VERSION;
  assertPinnedVersion("openclaw version", version);
  assertPinnedVersion("node version", nodeVersion);
  if (opts.npmCacheDir !== undefined && !opts.npmCacheDir.startsWith("/")) {
    throw new Error(
      `npmCacheDir: expected an absolute path, got ${JSON.stringify(opts.npmCacheDir)}`,
    );
  }
  const paths = openclawPaths(version, nodeVersion);
  const cache = shellQuote(opts.npmCacheDir ?? SANDBOX_CACHE);

  const cacheFlag = `--cache ${cache}`;
  const installNode = installNodeCommand({ ...paths, nodeVersion, cacheFlag });
  const installOpenclaw = installOpenclawCommand({ ...paths, version, cacheFlag });
  const writeWrapper = [
    "mkdir -p .local/bin",
    `cat > ${paths.wrapper} <<'CLAWRUN_EOF'`,
    wrapperScript(paths),
    "CLAWRUN_EOF",
    `chmod 755 ${paths.wrapper}`,
  ].join("\n");

  const install = [installNode, installOpenclaw, writeWrapper];
  if (opts.npmCacheDir === undefined) install.push(`rm -rf ${SANDBOX_CACHE}`);
  return {
    name: "openclaw",
    check: `${paths.wrapper} --version 2>/dev/null | grep -qE '${versionPattern(version)}'`,
    install,
  };
}
