import type { z } from "zod";
import { joinPath } from "../../config/format-issues";
import { ChannelRequestError } from "./types";

/**
 * Parses a webhook body that must be JSON of `schema`'s shape; anything else is a 400 that
 * names the first offending key and what was expected (`what` names the body, e.g.
 * "a Slack Events API payload").
 */
export function parseJsonBody<T>(raw: Buffer, schema: z.ZodType<T>, what: string): T {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    throw new ChannelRequestError(400, "invalid_json", `body: expected JSON, ${what}`);
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
  throw new ChannelRequestError(
    400,
    "invalid_body",
    `${where}: ${issue?.message ?? "invalid"}, in ${what}`,
  );
}
