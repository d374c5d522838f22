import { execFile } from "node:child_process";
import { join } from "node:path";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { isLiveState, readStat } from "../../../src/server/providers/local/proc";
import { vercelConfigSchema, vercelEnvSchema } from "../../../src/server/providers/vercel/config";
import { VercelProvider } from "../../../src/server/providers/vercel/vercel-provider";
import { startVercelSandboxEmulator } from "../../support/vercel-sandbox-emulator";
import { describeProviderContract } from "./provider-contract";

/**
 * The provider contract against the vercel provider in snapshot mode, through the real
 * @vercel/sandbox SDK and the Vercel Sandbox API emulator (real processes behind it).
 * Persistent mode makes one sandbox per instance, which the contract's side-by-side tests
 * cannot use; it has its own tests (tests/vercel/persistent-mode.test.ts).
 */

const emulator = await startVercelSandboxEmulator();
const instance = "contract";
const env = vercelEnvSchema.parse(emulator.env);
const config = vercelConfigSchema.parse({ mode: "snapshot" });
const fixture = join(__dirname, "..", "..", "fixtures", "vercel-create-and-exit.ts");

describeProviderContract({
  name: "vercel (snapshot mode, SDK → emulator)",
  kind: "remote-vm",
  makeProvider: () =>
    new VercelProvider({ config, env, instance, logger: pino({ level: "silent" }) }),
  createFromAnotherProcess: (create, setup) =>
    new Promise((resolve, reject) => {
      const input = JSON.stringify({ env: emulator.env, instance, create, ...setup });
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
  // Long enough for a create and a server start through HTTP, the SDK and the emulator
  // (a few hundred ms at load 4; the local provider's suite runs with 1.5 s).
  ttlMs: 2_000,
  node: process.execPath,
  listenHost: "127.0.0.1",
  unsupportedPolicies: [],
  // The emulator runs sessions as real processes here, so their pids are observable.
  hostProcessAlive: (pid) => {
    const stat = readStat(pid);
    return stat !== null && isLiveState(stat.state);
  },
  platformEnv: (sandbox) => emulator.portEnv(sandbox.id),
  cleanup: () => emulator.close(),
});

describe("the SDK's requests during the vercel contract suite", () => {
  it("were all known to the emulator, and every answer passed the SDK's own schemas", () => {
    expect(emulator.requests.length).toBeGreaterThan(100);
    expect(emulator.unknownRequests).toEqual([]);
    expect(emulator.faults).toEqual([]);
  });
});
