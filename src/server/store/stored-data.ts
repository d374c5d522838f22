import type { z } from "zod";
import { formatIssues } from "../../config/format-issues";
import {
  type InboxMessage,
  inboxMessageSchema,
  type NewInboxMessage,
} from "../domain/inbox-message";
import { StoreDataError } from "./types";

/**
 * Parsing of everything read back from a backend, shared by both adapters: stored data that
 * fails its schema becomes a StoreDataError naming the key, never an `undefined` crash.
 */

export function parseStoredJson<T>(schema: z.ZodType<T>, raw: unknown, key: string): T {
  if (typeof raw !== "string")
    throw new StoreDataError(key, `expected JSON text, got ${kind(raw)}`);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new StoreDataError(key, "not valid JSON");
  }
  return parseStoredValue(schema, json, key);
}

export function parseStoredValue<T>(schema: z.ZodType<T>, value: unknown, key: string): T {
  // Without the offending input: stored values may hold message text or reply URLs.
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new StoreDataError(key, formatIssues("value", result.error.issues).join("; "));
  }
  return result.data;
}

/** A version counter as stored: a non-negative integer (redis hands it back as text). */
export function parseStoredVersion(raw: unknown, key: string): number {
  const n = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : raw;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw new StoreDataError(key, `version must be a non-negative integer, got ${kind(raw)}`);
  }
  return n;
}

/** The part of an inbox message that never changes after enqueue; stored as one JSON text. */
export const inboxBodySchema = inboxMessageSchema.pick({
  id: true,
  channel: true,
  conversation: true,
  text: true,
  receivedAt: true,
  meta: true,
});

export function inboxBody(message: NewInboxMessage): string {
  const { id, channel, conversation, text, receivedAt, meta } = message;
  return JSON.stringify({ id, channel, conversation, text, receivedAt, meta });
}

/** The changing part of an inbox message, kept in separate fields/columns so updates never rewrite the body. */
export interface InboxFields {
  seq: unknown;
  attempts: unknown;
  lastError: unknown;
  notBefore: unknown;
  claimedUntil: unknown;
}

export function assembleInboxMessage(
  body: unknown,
  fields: InboxFields,
  key: string,
): InboxMessage {
  const parsedBody = parseStoredJson(inboxBodySchema, body, key);
  return parseStoredValue(
    inboxMessageSchema,
    {
      ...parsedBody,
      seq: integerText(fields.seq),
      attempts: integerText(fields.attempts),
      lastError: fields.lastError ?? null,
      notBefore: integerText(fields.notBefore),
      claimedUntil: integerText(fields.claimedUntil),
    },
    key,
  );
}

/** Redis returns hash fields as text; a well-formed integer becomes a number, anything else is left for the schema to reject. */
function integerText(value: unknown): unknown {
  return typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value;
}

function kind(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (typeof value === "string") return JSON.stringify(value.slice(0, 40));
  return typeof value;
}
