import { type ChildProcess, spawn } from "node:child_process";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { vercelConfigSchema, vercelEnvSchema } from "../../src/server/providers/vercel/config";
import { VercelProvider } from "../../src/server/providers/vercel/vercel-provider";

/**
 * `npm run emulator`, as a user starts it: it prints its URL and the environment, the
 * provider built from exactly that printed environment reaches it through the SDK, and
 * Ctrl-C (SIGINT to its process group) stops it cleanly.
 */

let child: ChildProcess | null = null;
afterAll(() => {
  // Only if the test failed before stopping it: its whole process group (npm, tsx, node).
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
});

function startEmulator(): Promise<{ out: () => string; url: string }> {
  child = spawn("npm", ["run", "--silent", "emulator", "--", "--port", "0"], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      // The env block is printed in the same write as the URL line; wait for its end.
      if (url && out.includes("Ctrl-C stops it")) {
        clearInterval(timer);
        resolve({ out: () => out, url });
      }
    }, 100);
    child?.once("exit", (code) => {
      clearInterval(timer);
      reject(new Error(`emulator exited (${code}) before it was ready:\n${out}`));
    });
  });
}

describe("npm run emulator", () => {
  it("prints its URL and environment, answers the SDK with them, and stops on Ctrl-C", async () => {
    const { out, url } = await startEmulator();
    const printed = Object.fromEntries(
      [...out().matchAll(/^ {2}export ([A-Z_]+)=(\S+)$/gm)].map((m) => [m[1], m[2]]),
    );
    expect(Object.keys(printed).sort()).toEqual([
      "CLAWRUN_VERCEL_API_URL",
      "VERCEL_PROJECT_ID",
      "VERCEL_TEAM_ID",
      "VERCEL_TOKEN",
    ]);
    expect(printed.CLAWRUN_VERCEL_API_URL).toBe(url);

    const provider = new VercelProvider({
      config: vercelConfigSchema.parse({}),
      env: vercelEnvSchema.parse(printed),
      instance: "emulator-script",
      logger: pino({ level: "silent" }),
    });
    await provider.check(); // lists sandboxes through the real SDK
    const unauthenticated = await fetch(`${url}/v2/sandboxes?project=prj_emulated`);
    expect(unauthenticated.status).toBe(403);

    // Ctrl-C in a terminal signals the whole foreground group: npm, tsx and the script.
    const exited = new Promise((resolve) => child?.once("exit", resolve));
    process.kill(-(child?.pid ?? 0), "SIGINT");
    await exited;
    await expect.poll(out, { timeout: 30_000 }).toContain("emulator: stopped");
    await expect(fetch(url)).rejects.toThrow();
  }, 120_000);
});
