import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { isErrorNamed } from "../protocol/named-error";
import { formatIssues } from "./format-issues";
import { type ClawrunConfig, clawrunConfigSchema } from "./schema";
import { stripJsonComments } from "./strip-json-comments";

export class ConfigError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isErrorNamed(value, "ConfigError");
  }

  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
    this.name = "ConfigError";
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
  text: string,
  source = "clawrun.json",
): { config: ClawrunConfig; raw: unknown } {
  let raw: unknown;
  try {
    raw = JSON.parse(stripJsonComments(text));
  } catch (err) {
    throw new ConfigError([`${source}: not valid JSON (${(err as Error).message})`]);
  }
  const result = clawrunConfigSchema.safeParse(raw, { reportInput: true });
  if (!result.success) throw new ConfigError(formatIssues(source, result.error.issues));
  return { config: result.data, raw };
}

/** Reads the config file; a missing file means "all defaults" (the zero-setup local run). */
export function loadConfig(path: string): LoadedConfig {
  const absolute = resolve(path);
  let text: string;
  try {
    text = readFileSync(absolute, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      return { config: clawrunConfigSchema.parse({}), path: null, raw: {} };
    }
    throw new ConfigError([`${absolute}: cannot be read (${(err as Error).message})`]);
  }
  const shown = relative(process.cwd(), absolute) || absolute;
  const { config, raw } = parseConfig(text, shown.startsWith("..") ? absolute : shown);
  return { config, path: absolute, raw };
}
