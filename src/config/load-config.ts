import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { z } from "zod";
import { ClawrunError } from "../protocol/clawrun-error";
import { formatIssues } from "./format-issues";
import type { ClawrunConfig } from "./schema";
import { stripJsonComments } from "./strip-json-comments";

export class ConfigError extends ClawrunError {
  static override readonly errorName = "ConfigError";
  constructor(readonly problems: string[]) {
    super("misconfigured", problems.join("\n"), { status: 503 });
  }
}

export interface LoadedConfig {
  config: ClawrunConfig;
  /** Absolute path of the file, or null when none exists and defaults are used. */
  path: string | null;
  /** The object as written in the file (before defaults), so the dashboard can tell "set" from "default". */
  raw: unknown;
}

/** Parses clawrun.json text (comments allowed). Throws ConfigError with one line per problem. */
export function parseConfig(
  schema: z.ZodType,
  text: string,
  source = "clawrun.json",
): { config: ClawrunConfig; raw: unknown } {
  let raw: unknown;
  try {
    raw = JSON.parse(stripJsonComments(text));
  } catch (err) {
    throw new ConfigError([`${source}: not valid JSON (${(err as Error).message})`]);
  }
  const result = schema.safeParse(raw, { reportInput: true });
  if (!result.success) throw new ConfigError(formatIssues(source, result.error.issues));
  return { config: result.data as ClawrunConfig, raw };
}

/** Reads the config file; a missing file means "all defaults" (the zero-setup local run). */
export function loadConfig(schema: z.ZodType, path: string): LoadedConfig {
  const absolute = resolve(path);
  let text: string;
  try {
    text = readFileSync(absolute, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      return { config: schema.parse({}) as ClawrunConfig, path: null, raw: {} };
    }
    throw new ConfigError([`${absolute}: cannot be read (${(err as Error).message})`]);
  }
  const shown = relative(process.cwd(), absolute) || absolute;
  const { config, raw } = parseConfig(schema, text, shown.startsWith("..") ? absolute : shown);
  return { config, path: absolute, raw };
}
