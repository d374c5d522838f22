import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../../tests/support/free-port";
import { buildChildEnv } from "../../../sidecar/daemon-env";
import { installTools } from "../../../sidecar/tools";
import {
  ZEROCLAW_BIN,
  ZEROCLAW_SHA256,
  ZEROCLAW_VERSION,
  zeroclawAssetUrl,
  zeroclawTool,
} from "./install-tool";

// A release built here and served on loopback stands in for the GitHub release (unreachable
// from this machine); the install runs through the sidecar's real tool installer.

const dirs: string[] = [];
let server: Server;
let releasesUrl: string;
let goodSum: string;
const served: string[] = [];

beforeAll(async () => {
  const build = mkdtempSync(join(tmpdir(), "zeroclaw-release-"));
  dirs.push(build);
  const bin = join(build, "zeroclaw");
  writeFileSync(bin, `#!/bin/sh\necho "zeroclaw ${ZEROCLAW_VERSION}"\n`);
  chmodSync(bin, 0o755);
  mkdirSync(join(build, "web"));
  const tarball = join(build, "release.tar.gz");
  execFileSync("tar", ["-czf", tarball, "-C", build, "zeroclaw", "web"]);
  const bytes = readFileSync(tarball);
  goodSum = createHash("sha256").update(bytes).digest("hex");
  server = createServer((req, res) => {
    served.push(req.url ?? "");
    // Only the pinned version is "published"; anything else is a 404 like a missing asset.
    if (/^\/v0\.8\.3\/zeroclaw-[a-z0-9_]+-unknown-linux-gnu\.tar\.gz$/.test(req.url ?? "")) {
      res.writeHead(200, { "content-type": "application/gzip" }).end(bytes);
    } else res.writeHead(404).end("Not Found");
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  releasesUrl = `http://127.0.0.1:${port}/`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function sandbox(): string {
  const d = mkdtempSync(join(tmpdir(), "zeroclaw-sbx-"));
  dirs.push(d);
  return d;
}

async function install(root: string, tool: ReturnType<typeof zeroclawTool>) {
  const logs: string[] = [];
  const outcome = await installTools({
    tools: [tool],
    cwd: root,
    env: buildChildEnv({ base: { PATH: process.env.PATH, HOME: root }, root }),
    attempts: 1,
    retryDelayMs: 0,
    log: { info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(m) },
  });
  return { outcome: outcome.zeroclaw, logs: logs.join("\n") };
}

const both = (sum: string) => ({
  "x86_64-unknown-linux-gnu": sum,
  "aarch64-unknown-linux-gnu": sum,
});

describe("zeroclawTool", () => {
  it("installs the release whose SHA-256 matches the pin, and then its check passes", async () => {
    const root = sandbox();
    const tool = zeroclawTool({ releasesUrl, sha256: both(goodSum) });
    expect(spawnSync("sh", ["-c", tool.check], { cwd: root }).status).not.toBe(0);
    const { outcome, logs } = await install(root, tool);
    expect(logs).not.toContain("refusing");
    expect(outcome).toBe("installed");
    expect(spawnSync("sh", ["-c", tool.check], { cwd: root }).status).toBe(0);
    expect(existsSync(join(root, `${ZEROCLAW_BIN}.partial`))).toBe(false);
    expect(served.at(-1)).toMatch(
      new RegExp(`^/v${ZEROCLAW_VERSION}/zeroclaw-[a-z0-9_]+-unknown-linux-gnu\\.tar\\.gz$`),
    );
  });

  it("refuses a download whose SHA-256 differs from the pin, and installs nothing", async () => {
    const root = sandbox();
    const wrong = "0".repeat(64);
    const { outcome, logs } = await install(
      root,
      zeroclawTool({ releasesUrl, sha256: both(wrong) }),
    );
    expect(outcome).toBe("failed");
    expect(logs).toContain(`SHA-256 is ${goodSum}, expected ${wrong}`);
    expect(existsSync(join(root, ZEROCLAW_BIN))).toBe(false);
  });

  it("refuses an architecture without a pinned SHA-256 before downloading anything", async () => {
    const root = sandbox();
    const before = served.length;
    const { outcome, logs } = await install(root, zeroclawTool({ releasesUrl, sha256: {} }));
    expect(outcome).toBe("failed");
    expect(logs).toMatch(/no pinned SHA-256 for (x86_64|aarch64)-unknown-linux-gnu/);
    expect(served.length).toBe(before);
  });

  it("fails cleanly when the release asset is missing", async () => {
    const root = sandbox();
    const tool = zeroclawTool({ releasesUrl, version: "9.9.9", sha256: both(goodSum) });
    const { outcome } = await install(root, tool);
    expect(outcome).toBe("failed");
    expect(served.at(-1)).toMatch(/^\/v9\.9\.9\//);
    expect(existsSync(join(root, ZEROCLAW_BIN))).toBe(false);
  });

  it.each([
    [{ version: "latest" }, /zeroclaw version: expected a pinned version/],
    [
      { sha256: { "x86_64-unknown-linux-gnu": "abc" } },
      /sha256.x86_64-unknown-linux-gnu: expected 64/,
    ],
    [{ releasesUrl: "file:///etc" }, /releasesUrl: expected an http\(s\) URL/],
  ])("refuses options %j", (opts, message) => {
    expect(() => zeroclawTool(opts)).toThrow(message);
  });

  it("pins the release from ZeroClaw's own tap by default", () => {
    const script = zeroclawTool().install[0] ?? "";
    for (const sum of Object.values(ZEROCLAW_SHA256)) expect(script).toContain(`sum=${sum}`);
    expect(
      zeroclawAssetUrl(
        "https://github.com/zeroclaw-labs/zeroclaw/releases/download",
        "0.8.3",
        "x86_64-unknown-linux-gnu",
      ),
    ).toBe(
      "https://github.com/zeroclaw-labs/zeroclaw/releases/download/v0.8.3/zeroclaw-x86_64-unknown-linux-gnu.tar.gz",
    );
    expect(script).toContain(
      "'https://github.com/zeroclaw-labs/zeroclaw/releases/download/v0.8.3/'\"$asset\"",
    );
  });
});
