import { usageError } from "./exit-codes";

/**
 * Pure command-line parsing against a command's declared flags: `--flag`, `--flag value`,
 * `--flag=value`, short aliases (`-h`), and `--` to end the flags. Anything not declared is a
 * usage error naming the flag, so a typo never silently changes what a command does.
 */

export type FlagType = "boolean" | "string" | "integer";

export interface FlagSpec {
  type: FlagType;
  short?: string;
  /** Shown in --help; for value flags also the placeholder, e.g. "<id>". */
  value?: string;
  description: string;
  /** For integers: the inclusive range accepted. */
  min?: number;
  max?: number;
}

export type FlagSpecs = Record<string, FlagSpec>;
export type FlagValue = boolean | string | number;

export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, FlagValue>;
}

export function parseArgs(argv: readonly string[], specs: FlagSpecs, command: string): ParsedArgs {
  const positionals: string[] = [];
  const flags: Record<string, FlagValue> = {};
  const byShort = new Map(
    Object.entries(specs).flatMap(([name, s]) => (s.short ? [[s.short, name] as const] : [])),
  );
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const long = arg.startsWith("--");
    const eq = long ? arg.indexOf("=") : -1;
    const key = long ? arg.slice(2, eq === -1 ? undefined : eq) : arg.slice(1);
    const name = long ? key : byShort.get(key);
    const spec = name === undefined ? undefined : specs[name];
    if (name === undefined || spec === undefined) {
      throw usageError(
        `unknown flag ${arg.split("=")[0]} for "${command}" (see ${command} --help)`,
      );
    }
    if (spec.type === "boolean") {
      if (eq !== -1) throw usageError(`--${name} takes no value (got "${arg.slice(eq + 1)}")`);
      flags[name] = true;
      continue;
    }
    let raw: string | undefined;
    if (eq !== -1) raw = arg.slice(eq + 1);
    else {
      raw = argv[i + 1];
      i++;
    }
    if (raw === undefined || (eq === -1 && raw.startsWith("--"))) {
      throw usageError(`--${name} needs a value: --${name} ${spec.value ?? "<value>"}`);
    }
    flags[name] = spec.type === "integer" ? parseInteger(name, raw, spec) : raw;
  }
  return { positionals, flags };
}

function parseInteger(name: string, raw: string, spec: FlagSpec): number {
  const n = Number(raw);
  const min = spec.min ?? Number.MIN_SAFE_INTEGER;
  const max = spec.max ?? Number.MAX_SAFE_INTEGER;
  if (!/^-?\d+$/.test(raw) || n < min || n > max) {
    const range =
      spec.min !== undefined && spec.max !== undefined
        ? ` from ${spec.min} to ${spec.max}`
        : spec.min !== undefined
          ? ` of at least ${spec.min}`
          : "";
    throw usageError(`--${name}: expected an integer${range}, got "${raw}"`);
  }
  return n;
}

/** Typed reads of parsed flags (the parser already checked the types). */
export const flag = {
  bool: (p: ParsedArgs, name: string): boolean => p.flags[name] === true,
  str: (p: ParsedArgs, name: string): string | undefined => {
    const v = p.flags[name];
    return typeof v === "string" ? v : undefined;
  },
  int: (p: ParsedArgs, name: string): number | undefined => {
    const v = p.flags[name];
    return typeof v === "number" ? v : undefined;
  },
};
