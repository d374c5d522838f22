/** One POSIX shell word: single quotes, with embedded single quotes closed, escaped and reopened. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A pinned version as sandbox tools accept it: digits and dots, an optional pre-release tag. */
export const PINNED_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?$/;

/** Throws when `version` is not a plain pinned version (it ends up in shell commands and paths). */
export function assertPinnedVersion(what: string, version: string): void {
  if (!PINNED_VERSION.test(version)) {
    throw new Error(
      `${what}: expected a pinned version like 1.2.3, got ${JSON.stringify(version)}`,
    );
  }
}
