import { type ChildProcess, spawn } from "node:child_process";
import { freePort } from "./free-port";
import type { LifecycleHarness } from "./lifecycle-harness";

/**
 * A ClawRun server in a child process (tests/fixtures/server-in-child.ts) on the harness's
 * store and state dir, so a test can SIGKILL it at any line; resolves with its URL once it
 * listens. The child is pushed to `children` for the caller's cleanup.
 */
export async function serverInChild(
  harness: LifecycleHarness,
  children: ChildProcess[],
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "tests/fixtures/server-in-child.ts",
      JSON.stringify({ ...harness.params, port }),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => d.toString().includes("listening") && resolve());
    child.once("exit", (code) => reject(new Error(`server child exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}
