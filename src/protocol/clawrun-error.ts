/**
 * The one error type that crosses module boundaries: a stable `code`, the HTTP `status` a
 * route answers with, and a message meant for people. Routes map it in one place
 * (src/server/http/errors.ts) to `{ "error": { "code", "message" } }`.
 *
 * Next.js loads modules once per route bundle while the composition root is shared, so an
 * error may be an instance of another copy of its class. `instanceof` therefore checks a
 * brand and a declared name instead of the prototype chain — one check, inherited by every
 * subclass. Subclasses declare `static readonly errorName` as a string literal because
 * minified server bundles rename classes.
 */
const BRAND = Symbol.for("clawrun.error");

export interface ClawrunErrorOptions {
  status?: number;
  cause?: unknown;
  /** Extra response headers (e.g. retry-after on a 503). */
  headers?: Record<string, string>;
}

export class ClawrunError extends Error {
  readonly [BRAND] = true;
  readonly status: number;
  readonly headers: Record<string, string>;

  static readonly errorName: string = "ClawrunError";

  static override [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== "object" || value === null || !(BRAND in value)) return false;
    // Any ClawrunError for the base class; for a subclass, errors of that class (by name).
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass being checked against.
    const wanted = (this as typeof ClawrunError).errorName;
    return wanted === "ClawrunError" || (value as unknown as Error).name === wanted;
  }

  constructor(
    readonly code: string,
    message: string,
    opts: ClawrunErrorOptions = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = (new.target as typeof ClawrunError).errorName;
    this.status = opts.status ?? 500;
    this.headers = opts.headers ?? {};
  }
}
