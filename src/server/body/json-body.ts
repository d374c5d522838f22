import type { z } from "zod";
import { joinPath } from "../../config/format-issues";
import { ClawrunError } from "../../protocol/clawrun-error";
import { readBodyLimited } from "./read-body";

/** A body that is not the JSON a route or webhook takes: 400, naming the key and the expectation. */
export class BadBodyError extends ClawrunError {
  static override readonly errorName = "BadBodyError";
  constructor(code: "invalid_json" | "invalid_body", message: string) {
    super(code, message, { status: 400 });
  }
}

/**
 * The one JSON body reader: reads at most `maxBytes` (413 beyond), then parses it against
 * `schema` (400 naming the first offending key). `what` names the body in messages, e.g.
 * "a Slack Events API payload". An empty body parses as `{}` when `emptyAs` says so.
 */
export async function readJson<T>(
  request: Request,
  schema: z.ZodType<T>,
  o: { maxBytes: number; what: string; emptyAs?: unknown },
): Promise<T> {
  const raw = await readBodyLimited(request, o.maxBytes);
  if (raw.length === 0 && o.emptyAs !== undefined) return parseJsonValue(o.emptyAs, schema, o.what);
  return parseJsonBody(raw, schema, o.what);
}

/** Parses raw bytes (a webhook's, already read for its signature) as JSON of `schema`'s shape. */
export function parseJsonBody<T>(raw: Buffer, schema: z.ZodType<T>, what: string): T {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    throw new BadBodyError("invalid_json", `body: expected JSON, ${what}`);
  }
  return parseJsonValue(json, schema, what);
}

/** The same check for a value taken out of the body at `at` (e.g. `["event"]`). */
export function parseJsonValue<T>(
  json: unknown,
  schema: z.ZodType<T>,
  what: string,
  at: readonly PropertyKey[] = [],
): T {
  const parsed = schema.safeParse(json, { reportInput: false });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = [...at, ...(issue?.path ?? [])];
  const where = path.length > 0 ? joinPath(path) : "body";
  const problem =
    issue?.code === "unrecognized_keys"
      ? `unknown field(s) ${issue.keys.join(", ")}`
      : (issue?.message ?? "invalid");
  throw new BadBodyError("invalid_body", `${where}: ${problem}, in ${what}`);
}
