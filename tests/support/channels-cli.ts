import { execFile } from "node:child_process";
import type { ClawrunServer } from "./clawrun-server";

/** Runs `clawrun channels <args>` (bin/clawrun.mjs, docs/cli.md) against a test server's operator API. */
export function channelsCli(
  server: ClawrunServer,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["bin/clawrun.mjs", "channels", ...args],
      {
        env: { ...process.env, ...server.env, NODE_ENV: "test" },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
