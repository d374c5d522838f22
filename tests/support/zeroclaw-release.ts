import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import {
  ZEROCLAW_VERSION,
  type ZeroClawTarget,
} from "../../src/server/agents/zeroclaw/install-tool";
import { freePort } from "./free-port";

export interface StandInRelease {
  /** What `zeroclawTool({ releasesUrl })` takes: assets are `<url>/v<version>/<asset>`. */
  releasesUrl: string;
  /** The archive's SHA-256, pinned for every target (the archive is architecture-free). */
  sha256: Record<ZeroClawTarget, string>;
  /** Request paths the server saw. */
  served: string[];
  close(): Promise<void>;
}

/**
 * Builds a ZeroClaw "release" whose `zeroclaw` is the bundled stand-in
 * (tests/support/zeroclaw-stand-in.ts, run by the sandbox's `node`), laid out like the real
 * archives (the binary at the top), and serves it on loopback for the pinned version only.
 */
export async function serveStandInRelease(): Promise<StandInRelease> {
  const dir = mkdtempSync(join(tmpdir(), "zeroclaw-stand-in-"));
  const bin = join(dir, "zeroclaw");
  await build({
    entryPoints: [join(import.meta.dirname, "zeroclaw-stand-in.ts")],
    outfile: bin,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    banner: { js: "#!/usr/bin/env node" },
    logLevel: "warning",
  });
  chmodSync(bin, 0o755);
  const archive = join(dir, "release.tar.gz");
  execFileSync("tar", ["-czf", archive, "-C", dir, "zeroclaw"]);
  const bytes = readFileSync(archive);
  const sum = createHash("sha256").update(bytes).digest("hex");
  const served: string[] = [];
  const asset = new RegExp(
    `^/v${ZEROCLAW_VERSION.replaceAll(".", "\\.")}/zeroclaw-[a-z0-9_]+-unknown-linux-gnu\\.tar\\.gz$`,
  );
  const server = createServer((req, res) => {
    served.push(req.url ?? "");
    if (asset.test(req.url ?? "")) res.writeHead(200).end(bytes);
    else res.writeHead(404).end("Not Found");
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  return {
    releasesUrl: `http://127.0.0.1:${port}`,
    sha256: { "x86_64-unknown-linux-gnu": sum, "aarch64-unknown-linux-gnu": sum },
    served,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
