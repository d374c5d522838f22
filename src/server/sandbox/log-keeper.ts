import { z } from "zod";
import type { ManagedSandbox } from "../providers/types";
import type { KvStore } from "../store/types";

/** The sidecar's log inside a sandbox (docs/sidecar.md). */
export const SIDECAR_LOG_PATH = "logs/sidecar.log";
const KEY = "logs:last-sandbox";
/** Enough for the last few hundred lines; the store keeps one copy. */
const KEEP_BYTES = 64 * 1024;

const keptLogSchema = z.object({ sandboxId: z.string(), at: z.number(), text: z.string() });
export type KeptLog = z.infer<typeof keptLogSchema>;

/** Pure: the end of a log, cut at a line boundary. */
export function tailOf(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const cut = Buffer.from(text).subarray(-maxBytes).toString("utf8");
  const newline = cut.indexOf("\n");
  return newline >= 0 ? cut.slice(newline + 1) : cut;
}

/**
 * Saves the last lines of a sandbox's log before ClawRun stops it, so the operator can still
 * read why a daemon crashed after its sandbox (and the log in it) is gone. Never throws: a
 * log that cannot be read must not stop a lifecycle operation.
 */
export async function keepLastLog(
  kv: KvStore,
  sandbox: Pick<ManagedSandbox, "id" | "readFile">,
  now: number,
): Promise<void> {
  try {
    const content = await sandbox.readFile(SIDECAR_LOG_PATH, AbortSignal.timeout(5_000));
    if (!content) return;
    const kept: KeptLog = {
      sandboxId: sandbox.id,
      at: now,
      text: tailOf(content.toString("utf8"), KEEP_BYTES),
    };
    await kv.set(KEY, JSON.stringify(kept), null);
  } catch {
    // The sandbox may already be gone; there is nothing to keep then.
  }
}

/** The kept log, or null when there is none or it is unreadable (never a failed request). */
export async function readKeptLog(kv: KvStore): Promise<KeptLog | null> {
  const raw = await kv.get(KEY);
  if (!raw) return null;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null;
  }
  const parsed = keptLogSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}
