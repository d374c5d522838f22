/**
 * Test fixture: plays a ClawRun server that creates a sandbox, starts a detached process in
 * it and exits. Deliberately never calls process.exit(): if anything the provider started
 * kept this process alive, the test waiting for it would time out.
 * Usage: node --import tsx create-and-exit.fixture.ts '<json>' → prints {"id": ...}
 */
import pino from "pino";
import { z } from "zod";
import { LocalProvider } from "./local-provider";

const inputSchema = z.object({
  stateDir: z.string(),
  killGraceMs: z.number(),
  watchdogPollMs: z.number(),
  create: z.object({ timeoutMs: z.number(), ports: z.array(z.number()) }),
  files: z.array(z.object({ path: z.string(), content: z.string() })),
  cmd: z.string(),
  args: z.array(z.string()),
});

async function main(): Promise<void> {
  const input = inputSchema.parse(JSON.parse(process.argv[2] ?? ""));
  const provider = new LocalProvider({
    stateDir: input.stateDir,
    logger: pino({ level: "silent" }),
    killGraceMs: input.killGraceMs,
    watchdogPollMs: input.watchdogPollMs,
  });
  const sandbox = await provider.create(input.create);
  await sandbox.writeFiles(input.files);
  await sandbox.runCommand({ cmd: input.cmd, args: input.args, detached: true });
  process.stdout.write(JSON.stringify({ id: sandbox.id }));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
