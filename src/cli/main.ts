/**
 * `clawrun` (bin/clawrun.mjs runs the bundle of this file): the operator CLI, docs/cli.md.
 * The only place the CLI touches the process: argv, environment, stdout/stderr, signals.
 */
import { runCli } from "./run";

// The first Ctrl-C ends the command cleanly (a --follow with exit 0, anything else
// "interrupted", exit 1); a second one does not wait for that (exit 130, as shells expect).
const controller = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort();
  });
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
