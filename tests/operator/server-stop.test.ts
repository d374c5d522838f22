import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, expect, it } from "vitest";
import { LocalProvider } from "../../src/server/providers/local/local-provider";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { clawrun } from "../support/cli";
import { freePort, waitFor } from "../support/free-port";

/**
 * Issue 22, item 12: Ctrl-C of `npm start` with the local provider no longer leaves the agent
 * running for up to ~50 min. The real `npm start` (preflight + next start) in its own process
 * group gets SIGINT as a terminal's Ctrl-C sends it; the agent is snapshotted and stopped.
 */

const stateDir = mkdtempSync(join(tmpdir(), "clawrun-stop-"));
let server: ChildProcess | undefined;
let again: ClawrunServer | undefined;
afterAll(async () => {
  if (server?.pid && groupAlive(server.pid)) process.kill(-server.pid, "SIGKILL");
  await again?.stop();
  const provider = new LocalProvider({ stateDir, logger: pino({ level: "silent" }) });
  for (const s of await provider.list().catch(() => []))
    await (await provider.get(s.id)).stop().catch(() => undefined);
  rmSync(stateDir, { recursive: true, force: true });
});

/** Whether any process of this process group still runs (npm, sh, next). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Processes whose working directory is inside this directory (a sandbox's root). */
function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`).startsWith(dir)) pids.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

it("Ctrl-C of npm start snapshots and stops the running agent, saying so", async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const admin = randomBytes(24).toString("base64url");
  const configPath = join(stateDir, "clawrun.json");
  writeFileSync(configPath, "{}");
  const env: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(port),
    CLAWRUN_STATE_DIR: stateDir,
    CLAWRUN_CONFIG: configPath,
    ADMIN_SECRET: admin,
    LOG_LEVEL: "warn",
  };
  delete env.NEXT_MANUAL_SIG_HANDLE;
  delete env.CLAWRUN_ON_EXIT;
  let output = "";
  const child = spawn("npm", ["start", "--", "-H", "127.0.0.1"], {
    env: env as NodeJS.ProcessEnv,
    detached: true, // its own process group, as a terminal's foreground job
    stdio: ["ignore", "pipe", "pipe"],
  });
  server = child;
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  await waitFor(
    "npm start to answer",
    async () => (await fetch(`${url}/api/health?live=1`).catch(() => null))?.ok === true,
    120_000,
    250,
  );
  const cli = { CLAWRUN_URL: url, ADMIN_SECRET: admin };
  const wake = await clawrun(["wake", "--wait"], cli);
  expect(wake.code, wake.stderr).toBe(0);
  const status = JSON.parse((await clawrun(["status", "--json"], cli)).stdout) as {
    instance: { sandboxId: string };
  };
  const sandboxId = status.instance.sandboxId;
  const sandboxDir = join(stateDir, "sandboxes", sandboxId);
  expect(processesIn(sandboxDir).length).toBeGreaterThan(0);

  process.kill(-(child.pid as number), "SIGINT"); // Ctrl-C: the whole foreground group
  // npm, the shell and the server all end (npm by the signal, the server once it slept).
  const pgid = child.pid as number;
  await waitFor("every process of npm start to end", async () => !groupAlive(pgid), 100_000, 200);
  expect(output).toContain("clawrun: SIGINT: putting the agent to sleep before exiting");
  expect(output).toMatch(/clawrun: the agent is asleep \(snapshot snap_/);

  // Nothing of the sandbox runs, and it is stopped with a snapshot kept.
  expect(processesIn(sandboxDir)).toEqual([]);
  const provider = new LocalProvider({ stateDir, logger: pino({ level: "silent" }) });
  expect((await provider.get(sandboxId)).status).toBe("stopped");
  expect((await provider.listSnapshots()).length).toBeGreaterThan(0);

  // The state says asleep, read by the next server on the same state directory.
  again = await startClawrun({ port, env: { CLAWRUN_STATE_DIR: stateDir, ADMIN_SECRET: admin } });
  const after = JSON.parse((await clawrun(["status", "--json"], cli)).stdout) as {
    instance: { status: string; snapshotId: string | null };
  };
  expect(after.instance.status).toBe("sleeping");
  expect(after.instance.snapshotId).toMatch(/^snap_/);
}, 300_000);
