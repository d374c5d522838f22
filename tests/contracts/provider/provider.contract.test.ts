import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { LocalProvider } from "../../../src/server/providers/local/local-provider";
import { isLiveState, readStat } from "../../../src/server/providers/local/proc";
import { describeProviderContract } from "./provider-contract";

const stateDir = mkdtempSync(join(tmpdir(), "clawrun-local-contract-"));
// Short timings keep the suite fast; the shipped defaults are in LocalProvider.
const timings = { killGraceMs: 300, watchdogPollMs: 100 };
const fixture = join(__dirname, "..", "..", "fixtures", "create-and-exit.ts");

describeProviderContract({
  name: "local",
  kind: "host-directory",
  makeProvider: () =>
    new LocalProvider({ stateDir, logger: pino({ level: "silent" }), ...timings }),
  createFromAnotherProcess: (create, setup) =>
    new Promise((resolve, reject) => {
      const input = JSON.stringify({ stateDir, ...timings, create, ...setup });
      execFile(
        process.execPath,
        ["--import", "tsx", fixture, input],
        { timeout: 20_000 },
        (err, stdout, stderr) => {
          if (err) return reject(new Error(`fixture failed: ${err.message}\n${stderr}`));
          resolve((JSON.parse(stdout) as { id: string }).id);
        },
      );
    }),
  ttlMs: 1_500,
  node: process.execPath,
  listenHost: "127.0.0.1",
  unsupportedPolicies: ["deny-all", { allow: ["example.com"] }],
  hostProcessAlive: (pid) => {
    const stat = readStat(pid);
    return stat !== null && isLiveState(stat.state);
  },
  cleanup: async () => rmSync(stateDir, { recursive: true, force: true }),
});
