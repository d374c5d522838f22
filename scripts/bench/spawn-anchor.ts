import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";

/**
 * The machine's own floor for a wake (issue: "the wake, against the machine's own limit"):
 * spawn a bare Node HTTP server and wait until it says it listens. A wake spawns at least one
 * Node process that must listen before anything can be delivered, so no wake can beat this on
 * the same machine; the wake bench reports its own median as a multiple of it.
 */
const SERVER =
  "require('node:http').createServer((q,s)=>s.end()).listen(0,'127.0.0.1',function(){process.stdout.write('up\\n')})";

function spawnUntilListening(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ["-e", SERVER], { stdio: ["ignore", "pipe", "inherit"] });
    child.once("error", reject);
    child.stdout.once("data", () => {
      const ms = performance.now() - t0;
      child.once("exit", () => resolve(ms));
      child.kill("SIGKILL");
    });
  });
}

/** Spawn → listening of a bare Node server, `runs` times in a row (ms each). */
export async function spawnAnchor(runs: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) out.push(await spawnUntilListening());
  return out;
}
