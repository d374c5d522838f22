/**
 * Restore attestation (docs/lifecycle.md, "Restore attestation"): before every save ClawRun
 * writes a generation marker into the sandbox's files; the sidecar reads it once at start and
 * reports it, so ClawRun can tell that a restored or resumed sandbox holds the save it expected.
 * Hand-checked (no schema library) because the sidecar bundles this file.
 */

/** Relative to the sandbox root; inside the provision directory, which activity ignores. */
export const GENERATION_FILE = ".clawrun/generation.json";

/** What the marker file holds. Generations count saves from 1; 0 means "no marker" (never saved). */
export interface GenerationMarker {
  generation: number;
  /** The sandbox the save was taken from (for people reading the file). */
  sandboxId: string;
  writtenAt: number;
}

export function isGeneration(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/**
 * The generation a marker file's text names, or null when the text is not a marker (a
 * damaged file must not pass as any generation).
 */
export function parseGenerationMarker(text: string): number | null {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== "object" || value === null) return null;
    const generation = (value as { generation?: unknown }).generation;
    return isGeneration(generation) && generation > 0 ? generation : null;
  } catch {
    return null;
  }
}

export function formatGenerationMarker(marker: GenerationMarker): string {
  return `${JSON.stringify(marker)}\n`;
}
