/**
 * `clawrun` (bin/clawrun.mjs runs the bundle of this file): the operator CLI, docs/cli.md.
 * The only place the CLI touches the process: argv, environment, stdout/stderr, signals.
 */
import { runCli } from "./run";

const controller = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => controller.abort());
}

runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
}).then((code) => {
  // Let stdout drain (a pipe may be slower than us) before exiting with the code.
  process.exitCode = code;
  setImmediate(() => process.exit(code));
});
