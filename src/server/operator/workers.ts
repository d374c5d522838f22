import { z } from "zod";
import { ClawrunError } from "../../protocol/clawrun-error";
import type { AppContext } from "../app-context";
import { INSTANCE_LABEL, ROLE_LABEL, WORKER_ROLE } from "../domain/sandbox-labels";
import { recordEvent } from "../sandbox/deps";

export const workerRequestSchema = z.strictObject({
  command: z
    .string({ error: "expected the program to run" })
    .min(1, { error: "expected the program to run" }),
  args: z.array(z.string(), { error: "expected an array of strings" }).max(100).default([]),
  /** Seconds the command may run; the sandbox is stopped when it is over either way. */
  timeoutSeconds: z
    .number({ error: "expected seconds from 1 to 240" })
    .int({ error: "expected seconds from 1 to 240" })
    .min(1, { error: "expected seconds from 1 to 240" })
    .max(240, { error: "expected seconds from 1 to 240" })
    .default(60),
  /** A snapshot to start from (default: the newest). */
  snapshotId: z.string().min(1).max(200).optional(),
});
export type WorkerRequest = z.output<typeof workerRequestSchema>;

export interface WorkerResult {
  sandboxId: string;
  snapshotId: string;
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/**
 * A worker sandbox: a short-lived copy of the agent's files (from the newest snapshot, or one
 * chosen) that runs one command and is stopped afterwards. It never touches the agent's own
 * sandbox or state: it is created as a "worker" (never the resumable named sandbox) and
 * labelled so the reconcile tick does not take it for an orphan of the instance.
 */
export async function runWorker(
  ctx: Pick<AppContext, "clock" | "config" | "logger" | "provider" | "store">,
  req: WorkerRequest,
): Promise<WorkerResult> {
  const snapshots = await ctx.provider.listSnapshots();
  const newest = req.snapshotId ?? snapshots[0]?.id;
  if (!newest)
    throw new ClawrunError(
      "no_snapshot",
      "a worker starts from a snapshot, and there is none yet",
      {
        status: 409,
      },
    );
  if (req.snapshotId && !snapshots.some((s) => s.id === req.snapshotId))
    throw new ClawrunError("not_found", `snapshot ${req.snapshotId} does not exist`, {
      status: 404,
    });
  const snapshotId: string = newest;
  const started = ctx.clock();
  const sandbox = await ctx.provider.create({
    snapshotId,
    // The command's time, plus room to start and stop: the native TTL ends it in any case.
    timeoutMs: (req.timeoutSeconds + 120) * 1000,
    ports: [],
    resources: ctx.config.config.sandbox.resources,
    networkPolicy: ctx.config.config.sandbox.networkPolicy,
    labels: { [INSTANCE_LABEL]: ctx.config.config.instance.name, [ROLE_LABEL]: WORKER_ROLE },
    purpose: "worker",
  });
  const d = { store: ctx.store, clock: ctx.clock, logger: ctx.logger };
  await recordEvent(d, {
    type: "worker.started",
    sandboxId: sandbox.id,
    message: `worker ${sandbox.id} from ${snapshotId}: ${req.command} ${req.args.join(" ")}`.trim(),
    details: { snapshotId, command: req.command, args: req.args },
  });
  try {
    const out = await sandbox.runCommand({
      cmd: req.command,
      args: req.args,
      signal: AbortSignal.timeout(req.timeoutSeconds * 1000),
    });
    return finish({
      exitCode: out.exitCode,
      timedOut: false,
      stdout: out.stdout,
      stderr: out.stderr,
    });
  } catch (err) {
    if (!(err instanceof Error && err.name === "TimeoutError")) throw err;
    return finish({ exitCode: null, timedOut: true, stdout: "", stderr: "" });
  } finally {
    // Not stopQuietly: the kept log is the agent's, and a worker's must not replace it.
    await sandbox
      .stop()
      .catch((err: unknown) =>
        ctx.logger.warn({ sandboxId: sandbox.id, err: String(err) }, "stopping a worker failed"),
      );
  }

  async function finish(r: Pick<WorkerResult, "exitCode" | "timedOut" | "stdout" | "stderr">) {
    const result: WorkerResult = {
      ...r,
      sandboxId: sandbox.id,
      snapshotId,
      durationMs: ctx.clock() - started,
    };
    await recordEvent(d, {
      type: "worker.finished",
      level: r.timedOut || r.exitCode !== 0 ? "warn" : "info",
      sandboxId: sandbox.id,
      message: r.timedOut
        ? `worker ${sandbox.id} ran out of its ${req.timeoutSeconds} s and was stopped`
        : `worker ${sandbox.id} exited ${r.exitCode} after ${result.durationMs} ms`,
      details: { exitCode: r.exitCode, timedOut: r.timedOut, durationMs: result.durationMs },
    });
    return result;
  }
}
