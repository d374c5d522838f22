import type { TelegramMessage } from "./update";

/**
 * Names a non-text Telegram message for the agent ("describe" mode) or for the refusal
 * ("refuse" mode). Fields per the Bot API docs (PhotoSize, Voice, Document, Sticker, …);
 * only what a person would say about the attachment, never file ids.
 */
type Fields = Record<string, unknown>;
const obj = (v: unknown): Fields | null =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Fields) : null;
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" ? v : null);

const seconds = (f: Fields) => (num(f.duration) !== null ? `, ${num(f.duration)} s` : "");
const size = (f: Fields) => {
  const w = num(f.width);
  const h = num(f.height);
  return w !== null && h !== null ? `, ${w}×${h}` : "";
};
const named = (f: Fields) => (str(f.file_name) ? ` "${str(f.file_name)}"` : "");
const mime = (f: Fields) => (str(f.mime_type) ? `, ${str(f.mime_type)}` : "");

const KINDS: [key: string, kind: string, describe: (v: unknown) => string][] = [
  [
    "photo",
    "photo",
    (v) => {
      // An array of sizes; the last is the largest.
      const largest = Array.isArray(v) ? obj(v.at(-1)) : null;
      return `photo${largest ? size(largest) : ""}`;
    },
  ],
  ["voice", "voice message", (v) => `voice message${seconds(obj(v) ?? {})}`],
  ["video_note", "video message", (v) => `video message${seconds(obj(v) ?? {})}`],
  ["video", "video", (v) => `video${size(obj(v) ?? {})}${seconds(obj(v) ?? {})}`],
  ["animation", "GIF", (v) => `GIF${named(obj(v) ?? {})}`],
  [
    "audio",
    "audio file",
    (v) => {
      const f = obj(v) ?? {};
      const title = [str(f.performer), str(f.title)].filter(Boolean).join(" – ");
      return `audio file${title ? ` "${title}"` : named(f)}${seconds(f)}`;
    },
  ],
  ["document", "file", (v) => `file${named(obj(v) ?? {})}${mime(obj(v) ?? {})}`],
  ["sticker", "sticker", (v) => `sticker${str(obj(v)?.emoji) ? ` ${str(obj(v)?.emoji)}` : ""}`],
  [
    "location",
    "location",
    (v) => `location ${num(obj(v)?.latitude) ?? "?"}, ${num(obj(v)?.longitude) ?? "?"}`,
  ],
  [
    "venue",
    "venue",
    (v) => `venue "${str(obj(v)?.title) ?? "?"}", ${str(obj(v)?.address) ?? "no address"}`,
  ],
  [
    "contact",
    "contact",
    (v) => {
      const f = obj(v) ?? {};
      const name = [str(f.first_name), str(f.last_name)].filter(Boolean).join(" ");
      return `contact ${name || "(no name)"}${str(f.phone_number) ? `, ${str(f.phone_number)}` : ""}`;
    },
  ],
  ["poll", "poll", (v) => `poll "${str(obj(v)?.question) ?? "?"}"`],
  ["dice", "dice", (v) => `dice ${str(obj(v)?.emoji) ?? ""} showing ${num(obj(v)?.value) ?? "?"}`],
  ["story", "story", () => "forwarded story"],
  ["paid_media", "paid media", () => "paid media"],
  ["game", "game", (v) => `game "${str(obj(v)?.title) ?? "?"}"`],
];

export function describeAttachment(
  m: TelegramMessage,
): { kind: string; description: string } | null {
  const fields = m as Fields;
  for (const [key, kind, describe] of KINDS) {
    if (fields[key] !== undefined) return { kind, description: describe(fields[key]) };
  }
  return null;
}
