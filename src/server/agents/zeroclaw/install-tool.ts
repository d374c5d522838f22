import type { ToolSpec } from "../../../config/schema";
import { assertPinnedVersion, shellQuote } from "../shell-quote";

/**
 * The pinned ZeroClaw release (docs/agents/zeroclaw.md). Assets are
 * `zeroclaw-<target triple>.tar.gz` with the `zeroclaw` binary at the top; the SHA-256 values
 * are the ones ZeroClaw's own Homebrew tap pins for this version (zeroclaw-labs/homebrew-tap,
 * Formula/zeroclaw.rb). They could not be checked against the release from this machine.
 */
export const ZEROCLAW_VERSION = "0.8.3";
export const ZEROCLAW_RELEASES = "https://github.com/zeroclaw-labs/zeroclaw/releases/download";
export const ZEROCLAW_SHA256 = {
  "x86_64-unknown-linux-gnu": "662abfa20afc5790538e69aebc1be60e188d34ba64f96fd81505bbcdd8edce44",
  "aarch64-unknown-linux-gnu": "d910d98821f13eaf7cd2037785fd95bb0a9e14700cb71cadea9c8d9328cf8e66",
} as const;

export type ZeroClawTarget = keyof typeof ZEROCLAW_SHA256;

export interface ZeroClawToolOptions {
  version?: string;
  /** SHA-256 per target triple; a target without one is refused. */
  sha256?: Partial<Record<ZeroClawTarget, string>>;
  /** Where `v<version>/<asset>` is downloaded from (tests serve it on loopback). */
  releasesUrl?: string;
}

export const ZEROCLAW_BIN = ".local/bin/zeroclaw";

/** Pure: the release asset for a target. */
export function zeroclawAsset(target: ZeroClawTarget): string {
  return `zeroclaw-${target}.tar.gz`;
}

/** Pure: the download URL of a version's asset. */
export function zeroclawAssetUrl(releasesUrl: string, version: string, target: ZeroClawTarget) {
  return `${releasesUrl}/v${version}/${zeroclawAsset(target)}`;
}

/** `uname -m` -> target triple (the glibc builds; Vercel and Debian sandboxes are glibc). */
const MACHINES: Record<ZeroClawTarget, string> = {
  "x86_64-unknown-linux-gnu": "x86_64|amd64",
  "aarch64-unknown-linux-gnu": "aarch64|arm64",
};

/**
 * Pure: the sandbox tool that downloads the pinned release for the sandbox's architecture,
 * refuses it unless its SHA-256 matches the pinned one, and only then installs the binary
 * to `~/.local/bin/zeroclaw` (renamed into place, so a failed install leaves nothing behind).
 */
export function zeroclawTool(opts: ZeroClawToolOptions = {}): ToolSpec {
  const version = opts.version ?? ZEROCLAW_VERSION;
  assertPinnedVersion("zeroclaw version", version);
  const sums = opts.sha256 ?? ZEROCLAW_SHA256;
  const releasesUrl = (opts.releasesUrl ?? ZEROCLAW_RELEASES).replace(/\/+$/, "");
  if (!/^https?:\/\/[^\s'"]+$/.test(releasesUrl)) {
    throw new Error(`releasesUrl: expected an http(s) URL, got ${JSON.stringify(releasesUrl)}`);
  }
  const cases = Object.entries(MACHINES).map(([target, machines]) => {
    const sum = sums[target as ZeroClawTarget];
    if (sum !== undefined && !/^[0-9a-f]{64}$/.test(sum)) {
      throw new Error(`sha256.${target}: expected 64 lowercase hex digits`);
    }
    return sum === undefined
      ? `  ${machines}) echo "zeroclaw tool: no pinned SHA-256 for ${target}" >&2; exit 1 ;;`
      : `  ${machines}) target=${target}; sum=${sum} ;;`;
  });
  const install = [
    "set -e",
    'case "$(uname -m)" in',
    ...cases,
    '  *) echo "zeroclaw tool: no release for architecture $(uname -m)" >&2; exit 1 ;;',
    "esac",
    "tmp=$(mktemp -d)",
    "trap 'rm -rf \"$tmp\"' EXIT",
    `asset="zeroclaw-$target.tar.gz"`,
    `curl -fsSL --retry 3 -o "$tmp/$asset" ${shellQuote(`${releasesUrl}/v${version}/`)}"$asset"`,
    'actual=$(sha256sum "$tmp/$asset" | cut -d" " -f1)',
    'if [ "$actual" != "$sum" ]; then',
    '  echo "zeroclaw tool: refusing $asset: SHA-256 is $actual, expected $sum" >&2; exit 1',
    "fi",
    'tar -xzf "$tmp/$asset" -C "$tmp" zeroclaw',
    "mkdir -p .local/bin",
    `cp "$tmp/zeroclaw" ${ZEROCLAW_BIN}.partial && chmod 755 ${ZEROCLAW_BIN}.partial`,
    `mv -f ${ZEROCLAW_BIN}.partial ${ZEROCLAW_BIN}`,
  ].join("\n");
  return {
    name: "zeroclaw",
    check: `${ZEROCLAW_BIN} --version 2>/dev/null | grep -qE '^zeroclaw ${version.replaceAll(".", "\\.")}( |$)'`,
    install: [install],
  };
}
