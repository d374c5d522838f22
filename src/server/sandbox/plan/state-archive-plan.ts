/**
 * Pure: how a templated sandbox's state is saved (docs/agents/openclaw.md, "Layer", Vercel).
 * The runtime is in the template snapshot; the agent's state (its root without the layer) is
 * a compressed archive kept in ClawRun's store in chunks, unless it is over the cap: then a
 * full sandbox snapshot holds it, as before templates.
 */

/** Ids of state archives, so they can never be mistaken for a provider's snapshot id. */
export const STATE_ARCHIVE_PREFIX = "state_";

/** One stored chunk of an archive, before base64 (Upstash's request limit is 1 MB on Free). */
export const STATE_CHUNK_BYTES = 256 * 1024;

export function isStateArchiveId(id: string): boolean {
  return id.startsWith(STATE_ARCHIVE_PREFIX) && /^[a-z0-9_]{8,64}$/.test(id);
}

export type StateSavePlan =
  | { kind: "archive"; chunks: number }
  | { kind: "full-snapshot"; reason: string };

/** Pure: the archive when it fits under the cap (0 disables archives), else a full snapshot. */
export function planStateSave(archiveBytes: number, maxArchiveBytes: number): StateSavePlan {
  if (!Number.isInteger(archiveBytes) || archiveBytes < 0)
    throw new Error(`archive size: expected a whole number of bytes, got ${archiveBytes}`);
  if (maxArchiveBytes <= 0)
    return { kind: "full-snapshot", reason: "state archives are off (maxStateArchiveMiB: 0)" };
  if (archiveBytes > maxArchiveBytes)
    return {
      kind: "full-snapshot",
      reason: `the agent's state is ${mib(archiveBytes)} compressed, over the ${mib(maxArchiveBytes)} cap for the store (maxStateArchiveMiB)`,
    };
  return { kind: "archive", chunks: Math.max(1, Math.ceil(archiveBytes / STATE_CHUNK_BYTES)) };
}

/** Pure: the archive in store-sized base64 chunks (at least one, so an empty one round-trips). */
export function toChunks(bytes: Buffer, chunkBytes = STATE_CHUNK_BYTES): string[] {
  if (chunkBytes <= 0) throw new Error("chunk size must be positive");
  const out: string[] = [];
  for (let at = 0; at < bytes.length || out.length === 0; at += chunkBytes)
    out.push(bytes.subarray(at, at + chunkBytes).toString("base64"));
  return out;
}

/** Pure: the chunks back into the archive; a missing chunk is an error, never a short file. */
export function fromChunks(chunks: readonly (string | null)[], expected: number): Buffer {
  if (chunks.length !== expected || chunks.some((c) => c === null))
    throw new Error(
      `the state archive is incomplete: ${chunks.filter((c) => c !== null).length} of ${expected} chunks`,
    );
  return Buffer.concat(chunks.map((c) => Buffer.from(c as string, "base64")));
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * Pure: whether a pack that tar ended with exit 1 ("file changed as we read it") is still a
 * faithful save. The paths that change while an agent idles (its logs, ClawRun's own
 * files, what the agent declares in `activityIgnore`) may; anything else changing means a torn
 * copy, and the caller saves a full snapshot instead. `volatile` paths are relative to the root.
 */
export function changedWhilePacking(
  stderr: string,
  volatile: readonly string[],
): { tolerable: boolean; changed: string[] } {
  const changed = [...stderr.matchAll(/^tar: (.+): file changed as we read it$/gm)].map((m) =>
    (m[1] as string).replace(/^\.\//, ""),
  );
  const otherErrors = stderr
    .split("\n")
    .filter((l) => l.trim() !== "" && !/: file changed as we read it$/.test(l));
  const isVolatile = (p: string) =>
    volatile.some((v) => {
      const root = v.replace(/^\.\//, "").replace(/\/+$/, "");
      return p === root || p.startsWith(`${root}/`);
    });
  return {
    tolerable: changed.length > 0 && otherErrors.length === 0 && changed.every(isVolatile),
    changed,
  };
}
