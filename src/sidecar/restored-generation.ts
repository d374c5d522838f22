import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GENERATION_FILE, parseGenerationMarker } from "../protocol/generation";
import type { Logger } from "./log-file";

/**
 * Reads the generation marker once, at start, before the agent can touch its files: the
 * generation of the save this sandbox was restored from (docs/lifecycle.md, "Restore
 * attestation"). 0 when there is none (a fresh sandbox), null when the file is unreadable or
 * damaged — which ClawRun treats as a mismatch whenever it expected a save.
 */
export function readRestoredGeneration(root: string, log: Logger): number | null {
  let text: string;
  try {
    text = readFileSync(join(root, GENERATION_FILE), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0;
    log.warn(`generation marker unreadable: ${(err as Error).message}`);
    return null;
  }
  const generation = parseGenerationMarker(text);
  if (generation === null) log.warn(`generation marker ${GENERATION_FILE} is damaged`);
  return generation;
}
