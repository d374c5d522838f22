import { randomBytes } from "node:crypto";

/**
 * Pure: sandbox names and ownership. Names are the API's identifiers (unique per project,
 * `^[a-zA-Z0-9_-]+$`, at most 128 characters); ManagedSandbox.id is the name.
 */

/** Tag every sandbox of this instance carries; list() filters on it (Vercel allows 5 tags). */
export const OWNER_TAG = "clawrun-instance";
export const MAX_TAGS = 5;

const NAME = /^[A-Za-z0-9_-]{1,128}$/;
const SNAPSHOT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Anything else (e.g. "../x") never reaches the SDK, which puts ids into URL paths unescaped. */
export function isSandboxName(id: string): boolean {
  return NAME.test(id);
}

export function isSnapshotId(id: string): boolean {
  return SNAPSHOT_ID.test(id);
}

/** Persistent mode: the one named sandbox of an instance. */
export function persistentName(instance: string): string {
  return `clawrun-${instance}`;
}

/** Snapshot mode: a new name per sandbox, time-ordered, with the instance for humans. */
export function snapshotModeName(instance: string, now = Date.now()): string {
  return `clawrun-${instance}-${now.toString(36)}${randomBytes(4).toString("hex")}`;
}

/** The tags a sandbox is created with: the caller's labels plus the ownership tag. */
export function tagsFor(instance: string, labels: Readonly<Record<string, string>> = {}) {
  return { ...labels, [OWNER_TAG]: instance };
}
