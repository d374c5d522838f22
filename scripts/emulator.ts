/**
 * The Vercel Sandbox API emulator as a service, to try the `vercel` provider on this machine
 * without a Vercel account (docs/vercel-sandbox.md, "Try the vercel provider locally"):
 *   npm run emulator [-- --port 3900]
 * Prints its URL and the environment that points ClawRun (and so the @vercel/sandbox SDK) at
 * it, then serves until Ctrl-C, which stops every sandbox it started and removes its files.
 * Sandboxes are local-provider sandboxes behind the API: processes of this user, not microVMs.
 */
import { startVercelSandboxEmulator } from "../tests/support/vercel-sandbox-emulator";

function portArg(args: string[]): number {
  const i = args.indexOf("--port");
  if (i < 0) return 0;
  const port = Number(args[i + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(
      `emulator: --port expects a port number (0 = any free one), got "${args[i + 1]}"`,
    );
    process.exit(2);
  }
  return port;
}

async function main(): Promise<void> {
  const port = portArg(process.argv.slice(2));
  const emulator = await startVercelSandboxEmulator({ port }).catch((err: unknown) => {
    console.error(`emulator: cannot listen on 127.0.0.1:${port}: ${(err as Error).message}`);
    process.exit(1);
  });
  // Printed as shell lines, so a copy-paste into the terminal that starts ClawRun works.
  const env = Object.entries(emulator.env).map(([k, v]) => `export ${k}=${v}`);
  console.log(
    [
      `Vercel Sandbox API emulator listening on ${emulator.url}`,
      "",
      "Point ClawRun at it: run these in the terminal where you start ClawRun (npm run dev),",
      'with "sandbox": { "provider": "vercel" } in clawrun.json:',
      "",
      ...env.map((line) => `  ${line}`),
      "",
      "CLAWRUN_VERCEL_API_URL sends every SDK request and sandbox URL here instead of Vercel;",
      "the token, team and project are the emulator's own and valid only for this run.",
      "Ctrl-C stops it and every sandbox it started.",
    ].join("\n"),
  );

  let closing = false;
  const stop = async () => {
    if (closing) return;
    closing = true;
    console.log("emulator: stopping its sandboxes ...");
    await emulator.close();
    console.log("emulator: stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
}

void main();
