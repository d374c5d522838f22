import { execFile } from "node:child_process";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { type ClawrunServer, startClawrun } from "../../tests/support/clawrun-server";
import { cliEnv } from "../../tests/support/cli";
import { ensureNextBuild } from "../../tests/support/next-build";

/**
 * `clawrun` from keystroke to exit, against the real production server with the echo agent
 * running: each command is a fresh Node process, as an operator or a script runs it.
 * Anchors measured in the same run: an empty Node process, and a minimal Node script doing
 * the same authenticated GET /api/sandbox (what any Node CLI cannot go below).
 *   npm run bench -- cli     (BENCH_CLI_RUNS=<n>, default 15)
 */
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 15);
const exec = promisify(execFile);

async function time(args: string[], env: NodeJS.ProcessEnv): Promise<number[]> {
  const out: number[] = [];
  await exec(process.execPath, args, { env }); // warm the file cache (and build the bundle)
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await exec(process.execPath, args, { env });
    out.push(performance.now() - t0);
  }
  return out;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

async function main(): Promise<void> {
  ensureNextBuild();
  const server: ClawrunServer = await startClawrun({});
  try {
    const env = cliEnv({
      CLAWRUN_URL: server.url,
      ADMIN_SECRET: server.secrets.admin,
      CLAWRUN_WEBHOOK_SECRET: server.secrets.webhook,
    });
    const cli = (...a: string[]) => ["bin/clawrun.mjs", ...a];
    await exec(process.execPath, cli("wake", "--wait"), { env });
    const rawGet = `fetch(${JSON.stringify(`${server.url}/api/sandbox`)},{headers:{authorization:"Bearer "+process.env.ADMIN_SECRET}}).then(r=>r.json()).then(()=>process.exit(0))`;
    const rows: [string, number[]][] = [
      ["anchor: node -e 0", await time(["-e", "0"], env)],
      ["anchor: node, fetch GET /api/sandbox", await time(["-e", rawGet], env)],
      ["clawrun --version", await time(cli("--version"), env)],
      ["clawrun status", await time(cli("status"), env)],
      ["clawrun events --limit 100", await time(cli("events", "--limit", "100"), env)],
      ["clawrun send (echo agent, reply)", await time(cli("send", "ping"), env)],
      ["clawrun config check", await time(cli("config", "check"), env)],
    ];
    console.log(`${RUNS} runs each, milliseconds from spawn to exit\n`);
    console.log("| command                              |  p50 |  p90 |  max |");
    console.log("| ------------------------------------ | ---: | ---: | ---: |");
    for (const [name, xs] of rows) {
      const f = (n: number) => String(Math.round(n)).padStart(4);
      console.log(
        `| ${name.padEnd(36)} | ${f(pct(xs, 50))} | ${f(pct(xs, 90))} | ${f(Math.max(...xs))} |`,
      );
    }
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
