import { z } from "zod";

/**
 * What a channel does with messages that are not plain text (photos, voice, files,
 * stickers): they are never dropped silently. "describe" delivers the message to the agent
 * with a line describing each attachment (the agent gets the description, not the file);
 * "refuse" stores nothing and tells the sender the agent cannot read that kind of message.
 */
export const attachmentModeSchema = z
  .enum(["describe", "refuse"], { error: 'expected "describe" or "refuse"' })
  .default("describe");
export type AttachmentMode = z.output<typeof attachmentModeSchema>;

/** What a platform tells about one attachment (each field may be unknown). */
export interface AttachmentInfo {
  name: string | null;
  /** MIME type or the platform's own kind ("image/png", "sticker", …). */
  type: string | null;
  bytes: number | null;
}

/** The message text the agent receives: the sender's text, then one line per attachment. */
export function textWithAttachments(text: string, attachments: readonly AttachmentInfo[]): string {
  if (attachments.length === 0) return text;
  const lines = attachments.map(
    (a) => `[attachment: ${describe(a)}; only this description was passed on]`,
  );
  return [text.trim(), ...lines].filter((l) => l !== "").join("\n");
}

/** The answer a sender gets when the channel refuses attachments. */
export function refusalText(attachments: readonly AttachmentInfo[]): string {
  return refusalOf(`this message (${attachments.map(describe).join(", ")})`);
}

/** The refusal for a message `what` names ("this voice message", "a file (image/png)"). */
export function refusalOf(what: string): string {
  return `Sorry, the agent can only read text messages, so it did not get ${what}. Please send it as text.`;
}

function describe(a: AttachmentInfo): string {
  const details = [a.type, a.bytes === null ? null : formatBytes(a.bytes)].filter(Boolean);
  const name = a.name ? `"${a.name}"` : "a file";
  return details.length > 0 ? `${name} (${details.join(", ")})` : name;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
