import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { configPathFrom } from "../config/env";
import { stripJsonComments } from "../config/strip-json-comments";
import { CliError, EXIT } from "./exit-codes";

/**
 * The operator's clawrun.json as `clawrun agents` reads and writes it: the file `config check`
 * and the server read (CLAWRUN_CONFIG, default ./clawrun.json), rewritten whole and atomically
 * (a temporary file beside it, then a rename), so a crash never leaves half a file.
 */

type Json = Record<string, unknown>;

export interface AgentsFile {
  path: string;
  /** False: no file yet; the defaults are one agent (docs/several-agents.md). */
  exists: boolean;
  parsed: Json;
  /** The file has `//` or `/* *\/` comments, which a rewrite would lose. */
  hasComments: boolean;
}

export function readAgentsFile(env: Record<string, string | undefined>, cwd: string): AgentsFile {
  const path = configPathFrom(env, cwd);
  if (!existsSync(path)) return { path, exists: false, parsed: {}, hasComments: false };
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new CliError(EXIT.failure, `${path} cannot be read (${(err as Error).message})`);
  }
  const stripped = stripJsonComments(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripped);
  } catch (err) {
    throw new CliError(EXIT.failure, `${path}: not valid JSON (${(err as Error).message})`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new CliError(EXIT.failure, `${path}: expected a JSON object`);
  }
  return { path, exists: true, parsed: parsed as Json, hasComments: stripped !== text };
}

/** Refuses to rewrite a commented file rather than silently drop the comments. */
export function refuseComments(file: AgentsFile): void {
  if (!file.hasComments) return;
  throw new CliError(
    EXIT.failure,
    `${file.path} has comments, which rewriting it would drop; nothing changed. Edit its ` +
      "`agents` by hand (docs/several-agents.md), or remove the comments and run this again",
    "has_comments",
  );
}

/** 2-space JSON and a trailing newline, written beside the file and renamed over it. */
export function writeAgentsFile(path: string, content: Json): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o644;
  try {
    writeFileSync(tmp, `${JSON.stringify(content, null, 2)}\n`, { mode });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new CliError(EXIT.failure, `${path} cannot be written (${(err as Error).message})`);
  }
}
