import { z } from "zod";
import { joinPath } from "../../../config/format-issues";
import type { AttachmentMode } from "../attachments";
import { ChannelRequestError } from "../types";
import { describeAttachment } from "./attachments";

/**
 * The Cloud API's webhook body (WhatsApp docs, "Webhooks: messages"): entries of changes;
 * a `messages` change carries the business number (metadata) and either `messages` from
 * people or `statuses` about messages the business sent. Loose objects: Meta adds fields.
 */
const messageSchema = z.looseObject({
  from: z.string().min(1),
  id: z.string().min(1),
  timestamp: z.string().optional(),
  type: z.string(),
  text: z.looseObject({ body: z.string() }).optional(),
  interactive: z
    .looseObject({
      type: z.string(),
      button_reply: z.looseObject({ title: z.string() }).optional(),
      list_reply: z
        .looseObject({ title: z.string(), description: z.string().optional() })
        .optional(),
    })
    .optional(),
  button: z.looseObject({ text: z.string() }).optional(),
});
const valueSchema = z.looseObject({
  messaging_product: z.literal("whatsapp").optional(),
  metadata: z.looseObject({ phone_number_id: z.string().min(1) }).optional(),
  messages: z.array(messageSchema).optional(),
  statuses: z.array(z.unknown()).optional(),
});
export const payloadSchema = z.looseObject({
  object: z.literal("whatsapp_business_account", {
    error: 'expected "whatsapp_business_account"',
  }),
  entry: z.array(
    z.looseObject({
      id: z.string().optional(),
      changes: z.array(z.looseObject({ field: z.string(), value: z.unknown() })),
    }),
  ),
});

/** What ClawRun keeps with a stored WhatsApp message to answer it. */
export const whatsappMetaSchema = z.object({
  /** The business number the person wrote to (replies come from the same number). */
  phoneNumberId: z.string().min(1),
  /** The person's WhatsApp id. */
  to: z.string().min(1),
});
export type WhatsappMeta = z.output<typeof whatsappMetaSchema>;

/** What to do with a message that is not plain text (channels/attachments.ts). */
export type AttachmentPolicy = AttachmentMode;

export interface ParsedMessage {
  id: string;
  conversation: string;
  text: string;
  meta: WhatsappMeta;
}
export interface Refusal {
  meta: WhatsappMeta;
  /** The wamid to quote in the answer. */
  wamid: string;
  what: string;
}
export interface ParsedPayload {
  messages: ParsedMessage[];
  refusals: Refusal[];
  /** One reason per part left out (status callbacks, reactions, other fields, …). */
  ignored: string[];
}

export interface ParseOptions {
  attachments: AttachmentPolicy;
  /** Only messages to this business number (absent: any number of the app). */
  phoneNumberId?: string;
  /** Only these senders (wa_id) reach the agent (absent: everyone). */
  allowedSenders?: readonly string[];
}

export const whatsappMessageId = (wamid: string) => `whatsapp:${wamid}`;
export const wamidOf = (messageId: string) => messageId.replace(/^whatsapp:/, "");
export const whatsappConversation = (waId: string) => `whatsapp:${waId}`;

/** Everything a webhook body holds, in the order Meta sent it. */
export function parsePayload(raw: Buffer, o: ParseOptions): ParsedPayload {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    throw new ChannelRequestError(400, "invalid_json", "body: expected a JSON WhatsApp webhook");
  }
  const payload = payloadSchema.safeParse(json);
  if (!payload.success) throw invalid(payload.error.issues[0], []);
  const out: ParsedPayload = { messages: [], refusals: [], ignored: [] };
  payload.data.entry.forEach((entry, e) => {
    entry.changes.forEach((change, c) => {
      if (change.field !== "messages") {
        out.ignored.push(`field "${change.field}"`);
        return;
      }
      const value = valueSchema.safeParse(change.value);
      if (!value.success) throw invalid(value.error.issues[0], ["entry", e, "changes", c, "value"]);
      const v = value.data;
      if (v.statuses?.length) out.ignored.push(`${v.statuses.length} status callback(s)`);
      if (!v.messages?.length) return;
      const phoneNumberId = v.metadata?.phone_number_id;
      if (!phoneNumberId)
        throw invalid({ message: "expected the business number's metadata" }, [
          "entry",
          e,
          "changes",
          c,
          "value",
          "metadata",
        ]);
      if (o.phoneNumberId && phoneNumberId !== o.phoneNumberId) {
        out.ignored.push(`messages to another business number (${phoneNumberId})`);
        return;
      }
      for (const m of v.messages) addMessage(out, m, phoneNumberId, o);
    });
  });
  return out;
}

function addMessage(
  out: ParsedPayload,
  m: z.output<typeof messageSchema>,
  phoneNumberId: string,
  o: ParseOptions,
): void {
  if (o.allowedSenders && !o.allowedSenders.includes(m.from)) {
    out.ignored.push(`sender ${m.from} is not in allowedSenders`);
    return;
  }
  const meta = { phoneNumberId, to: m.from };
  const base = { id: whatsappMessageId(m.id), conversation: whatsappConversation(m.from), meta };
  const text = plainText(m);
  if (text !== null) {
    out.messages.push({ ...base, text });
    return;
  }
  const attachment = describeAttachment(m.type, m as Record<string, unknown>);
  if (!attachment) {
    // reaction, system (number changed), order, request_welcome, …: not something to answer.
    out.ignored.push(`a ${m.type} message`);
    return;
  }
  if (o.attachments === "refuse") {
    out.refusals.push({ meta, wamid: m.id, what: attachment.kind });
    return;
  }
  const caption = attachment.caption ? `\n${attachment.caption}` : "";
  out.messages.push({ ...base, text: `[${attachment.description}]${caption}` });
}

/** Text, and the text of a tapped button or list item (the person's choice, in words). */
function plainText(m: z.output<typeof messageSchema>): string | null {
  if (m.type === "text" && m.text) return m.text.body;
  if (m.type === "button" && m.button) return m.button.text;
  if (m.type === "interactive" && m.interactive) {
    const reply = m.interactive.button_reply ?? m.interactive.list_reply;
    if (reply) return reply.title;
  }
  return null;
}

function invalid(
  issue: { path?: PropertyKey[]; message: string } | undefined,
  prefix: PropertyKey[],
): ChannelRequestError {
  const path = [...prefix, ...(issue?.path ?? [])];
  const where = path.length ? joinPath(path) : "body";
  return new ChannelRequestError(
    400,
    "invalid_payload",
    `${where}: ${issue?.message ?? "invalid"} (expected a WhatsApp Cloud API webhook)`,
  );
}
