import type { z } from "zod";

/** Turns zod issues into one readable line each: `<source>: <key.path>: <what was expected>, got <value>`. */
export function formatIssues(source: string, issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const path = issue.path.length > 0 ? `${joinPath(issue.path)}: ` : "";
    return `${source}: ${path}${describeIssue(issue)}`;
  });
}

export function joinPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) =>
      typeof part === "number" ? `[${part}]` : `${i > 0 ? "." : ""}${String(part)}`,
    )
    .join("");
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => `"${k}"`).join(", ");
    return `unknown key${issue.keys.length > 1 ? "s" : ""} ${keys} (not part of the schema)`;
  }
  // A record's key (an agent's name): zod's own message only says "key in record".
  if (issue.code === "invalid_key") {
    const inner = issue.issues[0]?.message;
    return `${inner ? cleanMessage(inner) : "invalid key"}, got ${describeValue(issue.input)}`;
  }
  const message = cleanMessage(issue.message);
  const got = "input" in issue ? describeValue(offendingValue(issue)) : undefined;
  if (got === undefined) return message;
  if (issue.code === "invalid_type" && issue.input === undefined)
    return `${message}, but it is missing`;
  return `${message}, got ${got}`;
}

/** A failed discriminator reports the whole object as input; the discriminator's value is what's wrong. */
function offendingValue(issue: z.core.$ZodIssue): unknown {
  const discriminator = (issue as { discriminator?: unknown }).discriminator;
  if (typeof discriminator === "string" && issue.input && typeof issue.input === "object") {
    return (issue.input as Record<string, unknown>)[discriminator];
  }
  return issue.input;
}

/** zod's built-in messages start with "Invalid input: expected ..."; keep the "expected ..." part. */
function cleanMessage(message: string): string {
  const m = /^Invalid (?:input|option|value)?:?\s*(.*)$/i.exec(message);
  return m?.[1] ? m[1] : message;
}

function describeValue(value: unknown): string | undefined {
  if (value === undefined) return "nothing";
  if (typeof value === "string")
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === "number" || typeof value === "boolean" || value === null)
    return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return typeof value;
}
