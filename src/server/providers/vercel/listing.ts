import type { Session } from "@vercel/sandbox";
import type { SandboxStatus, SandboxSummary, SnapshotInfo } from "../types";
import { OWNER_TAG } from "./naming";

/** Pure: turning the API's records into the port's, and choosing what to prune. */

/** The API's session status in the port's terms ("aborted" is a failure to us). */
export function toSandboxStatus(status: Session["status"]): SandboxStatus {
  return status === "aborted" ? "failed" : status;
}

/** The fields of the API's sandbox and snapshot records these functions read. */
export interface SandboxRecord {
  name: string;
  status: Session["status"];
  createdAt: number;
  currentSessionId: string;
  tags?: Record<string, string>;
}

export interface SnapshotRecord {
  id: string;
  sourceSessionId: string;
  status: "created" | "deleted" | "failed";
  sizeBytes: number;
  createdAt: number;
  expiresAt?: number;
}

export function toSummary(s: SandboxRecord): SandboxSummary {
  const { [OWNER_TAG]: _owner, ...labels } = s.tags ?? {};
  return { id: s.name, status: toSandboxStatus(s.status), createdAt: s.createdAt, labels };
}

/** Newest first, ties broken by id so the order is stable. */
export function newestFirst<T extends { id: string; createdAt: number }>(items: T[]): T[] {
  return [...items].sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id));
}

/**
 * Snapshot mode: the project's usable snapshots that came from this instance's sandboxes.
 * A snapshot names the session it was taken from; a non-persistent sandbox has exactly one
 * session, its `currentSessionId`, which leads back to the sandbox.
 */
export function ownedSnapshots(
  sandboxes: readonly SandboxRecord[],
  snapshots: readonly SnapshotRecord[],
): SnapshotInfo[] {
  const bySession = new Map(sandboxes.map((s) => [s.currentSessionId, s.name]));
  const owned = snapshots.flatMap((snap) => {
    const source = bySession.get(snap.sourceSessionId);
    return snap.status === "created" && source !== undefined ? [toSnapshotInfo(snap, source)] : [];
  });
  return newestFirst(owned);
}

/** Persistent mode: every usable snapshot listed for the named sandbox is its own. */
export function namedSnapshots(name: string, snapshots: readonly SnapshotRecord[]): SnapshotInfo[] {
  return newestFirst(
    snapshots.filter((s) => s.status === "created").map((s) => toSnapshotInfo(s, name)),
  );
}

function toSnapshotInfo(snap: SnapshotRecord, sourceSandboxId: string): SnapshotInfo {
  return {
    id: snap.id,
    createdAt: snap.createdAt,
    sourceSandboxId,
    sizeBytes: snap.sizeBytes,
    expiresAt: snap.expiresAt ?? null,
  };
}

const AT_REST: ReadonlySet<SandboxStatus> = new Set(["stopped", "failed"]);

/**
 * Snapshot mode leaves one stopped sandbox per wake behind. Those with no snapshot left
 * serve nothing but history: keep the newest `keep` of them, delete the rest.
 */
export function stoppedToPrune(
  sandboxes: readonly SandboxRecord[],
  snapshots: readonly SnapshotInfo[],
  keep: number,
): string[] {
  const withSnapshots = new Set(snapshots.map((s) => s.sourceSandboxId));
  return sandboxes
    .filter((s) => AT_REST.has(toSandboxStatus(s.status)) && !withSnapshots.has(s.name))
    .map((s) => ({ id: s.name, createdAt: s.createdAt }))
    .sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id))
    .slice(keep)
    .map((s) => s.id);
}
