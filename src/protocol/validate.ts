/**
 * Small hand-written checks for the payloads the sidecar reads or writes (its config, the
 * heartbeat, its health answer, door requests). The sidecar runs in every sandbox for as long
 * as the agent is awake, so it must not carry a schema library: bundling zod for a few
 * payloads cost it ~28 MB of resident memory (docs/sidecar.md, "Memory"). The server checks
 * the same payloads with the same functions, so both sides agree on one contract.
 *
 * Each check throws a PayloadError naming the field's path and what was expected; the
 * `parse…` functions of each payload catch it and return `{ ok: false, error }`.
 */
export class PayloadError extends Error {
  override name = "PayloadError";
  constructor(
    readonly path: string,
    readonly expected: string,
  ) {
    super(`${path === "" ? "(root)" : path}: ${expected}`);
  }
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export type Fields = Record<string, unknown>;

/** Runs a check that throws PayloadError, as a result; any other error is a bug and propagates. */
export function attempt<T>(check: () => T): Parsed<T> {
  try {
    return { ok: true, value: check() };
  } catch (err) {
    if (err instanceof PayloadError) return { ok: false, error: err.message };
    throw err;
  }
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function at(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return path === "" ? key : `${path}.${key}`;
}

/** A plain JSON object whose keys are all in `known` (a strict object: extra keys are refused). */
export function object(value: unknown, path: string, known?: readonly string[]): Fields {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new PayloadError(path, `expected object, got ${typeName(value)}`);
  }
  if (known) {
    for (const key of Object.keys(value)) {
      if (!known.includes(key)) throw new PayloadError(path, `unknown key "${key}"`);
    }
  }
  return value as Fields;
}

export interface StringRule {
  min?: number;
  max?: number;
}

export function string(o: Fields, key: string, path: string, rule: StringRule = {}): string {
  return stringValue(o[key], at(path, key), rule);
}

/** A bare string (e.g. an array item) at `path`. */
export function stringValue(value: unknown, path: string, rule: StringRule = {}): string {
  if (typeof value !== "string") {
    throw new PayloadError(path, `expected string, got ${typeName(value)}`);
  }
  const min = rule.min ?? 0;
  if (value.length < min) {
    throw new PayloadError(
      path,
      min === 1 ? "expected a non-empty string" : `expected at least ${min} characters`,
    );
  }
  if (rule.max !== undefined && value.length > rule.max) {
    throw new PayloadError(path, `expected at most ${rule.max} characters`);
  }
  return value;
}

export interface IntRule {
  min?: number;
  max?: number;
}

export function integer(o: Fields, key: string, path: string, rule: IntRule = {}): number {
  const value = o[key];
  const where = at(path, key);
  const range =
    rule.min !== undefined && rule.max !== undefined
      ? ` in ${rule.min}-${rule.max}`
      : rule.min !== undefined
        ? ` ≥ ${rule.min}`
        : "";
  const wanted = `expected number (an integer${range})`;
  if (typeof value !== "number") throw new PayloadError(where, `${wanted}, got ${typeName(value)}`);
  if (!Number.isInteger(value)) throw new PayloadError(where, `${wanted}, got ${value}`);
  if (
    (rule.min !== undefined && value < rule.min) ||
    (rule.max !== undefined && value > rule.max)
  ) {
    throw new PayloadError(where, `${wanted}, got ${value}`);
  }
  return value;
}

export function number(o: Fields, key: string, path: string, min = 0): number {
  const value = o[key];
  const where = at(path, key);
  if (typeof value !== "number" || !Number.isFinite(value) || value < min) {
    throw new PayloadError(
      where,
      `expected number ≥ ${min}, got ${JSON.stringify(value) ?? "undefined"}`,
    );
  }
  return value;
}

export function boolean(o: Fields, key: string, path: string): boolean {
  const value = o[key];
  if (typeof value !== "boolean") {
    throw new PayloadError(at(path, key), `expected boolean, got ${typeName(value)}`);
  }
  return value;
}

export function oneOf<const T extends string>(
  o: Fields,
  key: string,
  path: string,
  allowed: readonly T[],
): T {
  const value = o[key];
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw new PayloadError(
      at(path, key),
      `expected one of ${allowed.map((a) => `"${a}"`).join(", ")}, got ${JSON.stringify(value) ?? "undefined"}`,
    );
  }
  return value as T;
}

/** `null`, or what `check` accepts. */
export function nullable<T>(
  o: Fields,
  key: string,
  check: (o: Fields, key: string) => T,
): T | null {
  return o[key] === null ? null : check(o, key);
}

/** `fallback` when the key is absent (undefined), else what `check` accepts. */
export function optional<T, F>(
  o: Fields,
  key: string,
  fallback: F,
  check: (o: Fields, key: string) => T,
): T | F {
  return o[key] === undefined ? fallback : check(o, key);
}

export function array<T>(
  o: Fields,
  key: string,
  path: string,
  item: (value: unknown, path: string) => T,
  rule: { min?: number; max?: number } = {},
): T[] {
  const value = o[key];
  const where = at(path, key);
  if (!Array.isArray(value))
    throw new PayloadError(where, `expected array, got ${typeName(value)}`);
  if (rule.min !== undefined && value.length < rule.min) {
    throw new PayloadError(where, `expected at least ${rule.min} item(s)`);
  }
  if (rule.max !== undefined && value.length > rule.max) {
    throw new PayloadError(where, `expected at most ${rule.max} items`);
  }
  return value.map((v, i) => item(v, at(where, i)));
}

/** An object of string values (e.g. an environment). */
export function stringRecord(o: Fields, key: string, path: string): Record<string, string> {
  const where = at(path, key);
  const record = object(o[key], where);
  for (const [k, v] of Object.entries(record)) {
    if (typeof v !== "string")
      throw new PayloadError(at(where, k), `expected string, got ${typeName(v)}`);
  }
  return { ...(record as Record<string, string>) };
}

/** An absolute http(s) URL. */
export function url(o: Fields, key: string, path: string): string {
  const value = string(o, key, path, { min: 1 });
  let parsed: URL | null = null;
  try {
    parsed = new URL(value);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new PayloadError(at(path, key), `expected an http(s) URL, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function childPath(path: string, key: string | number): string {
  return at(path, key);
}
