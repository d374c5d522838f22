import type { ManagedSandbox } from "../../providers/types";
import { changedWhilePacking } from "../plan/state-archive-plan";

/**
 * The agent's state inside a templated sandbox: everything under its root except the layer
 * (what the local provider's snapshot holds: the agent's state dir and workspace, ClawRun's
 * provisioned files, the generation marker), packed with the sandbox's own tar. The archive
 * passes through a file in the root, excluded from itself.
 */

/** The archive's own directory, made before tar reads the root (so the root does not change). */
const ARCHIVE_DIR = ".clawrun-state";
const ARCHIVE_FILE = `${ARCHIVE_DIR}/state.tgz`;

export type Captured =
  /** `changed`: volatile files that changed while they were packed (tolerated). */
  | { ok: true; bytes: Buffer; ms: number; changed: string[] }
  /** tar could not give a consistent archive; the caller saves a full snapshot instead. */
  | { ok: false; reason: string };

/** Packs the state; a tar failure is not an error here (a full snapshot can still save it). */
export async function captureState(
  sandbox: ManagedSandbox,
  o: { layerMount: string; volatile: readonly string[]; clock: () => number },
  signal?: AbortSignal,
): Promise<Captured> {
  const t0 = o.clock();
  const packed = await sandbox.runCommand({
    cmd: "sh",
    args: [
      "-c",
      // $0 the archive's dir, $1 the archive, $2 the layer: the dir and the layer left out.
      'rm -rf "$0" && mkdir "$0" && tar -czf "$1" --exclude="./$0" --exclude="./$2" -C . .',
      ARCHIVE_DIR,
      ARCHIVE_FILE,
      o.layerMount,
    ],
    signal,
  });
  // Exit 1: files changed while read. Only the agent's idle chatter may (logs, WAL, ...).
  const changes = changedWhilePacking(packed.stderr, o.volatile);
  if (packed.exitCode !== 0 && !(packed.exitCode === 1 && changes.tolerable)) {
    await removeArchive(sandbox, signal);
    return {
      ok: false,
      reason: `packing the state exited ${packed.exitCode}${
        changes.changed.length > 0 ? ` (changed while read: ${changes.changed.join(", ")})` : ""
      }: ${tail(packed.stderr)}`,
    };
  }
  const bytes = await sandbox.readFile(ARCHIVE_FILE, signal);
  await removeArchive(sandbox, signal);
  if (!bytes) return { ok: false, reason: "the packed state could not be read back" };
  return { ok: true, bytes, ms: o.clock() - t0, changed: changes.changed };
}

/** Unpacks a state archive over the root of a sandbox fresh from its template; throws on failure. */
export async function restoreState(
  sandbox: ManagedSandbox,
  bytes: Buffer,
  signal?: AbortSignal,
): Promise<void> {
  await sandbox.writeFiles([{ path: ARCHIVE_FILE, content: bytes }], signal);
  const unpacked = await sandbox.runCommand({
    cmd: "sh",
    args: ["-c", 'tar -xzf "$1" -C . && rm -rf "$0"', ARCHIVE_DIR, ARCHIVE_FILE],
    signal,
  });
  if (unpacked.exitCode !== 0)
    throw new Error(`unpacking the state exited ${unpacked.exitCode}: ${tail(unpacked.stderr)}`);
}

async function removeArchive(sandbox: ManagedSandbox, signal?: AbortSignal): Promise<void> {
  await sandbox.runCommand({ cmd: "rm", args: ["-rf", ARCHIVE_DIR], signal });
}

function tail(text: string): string {
  return text.trim().split("\n").slice(-5).join(" | ").slice(-500);
}
