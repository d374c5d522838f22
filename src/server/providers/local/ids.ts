import { randomBytes } from "node:crypto";

const SANDBOX_ID = /^sbx_[0-9a-f]{24}$/;
const SNAPSHOT_ID = /^snap_[0-9a-z]{9}[0-9a-f]{12}$/;

/** `sbx_` + 96 random bits. */
export function newSandboxId(): string {
  return `sbx_${randomBytes(12).toString("hex")}`;
}

/** `snap_` + zero-padded base-36 milliseconds + random hex: ids sort by creation time. */
export function newSnapshotId(now = Date.now()): string {
  return `snap_${now.toString(36).padStart(9, "0")}${randomBytes(6).toString("hex")}`;
}

/** Ids become directory names, so anything else (e.g. "../x") is treated as unknown. */
export function isSandboxId(id: string): boolean {
  return SANDBOX_ID.test(id);
}

export function isSnapshotId(id: string): boolean {
  return SNAPSHOT_ID.test(id);
}
