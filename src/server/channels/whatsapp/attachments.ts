/**
 * Names a non-text WhatsApp message (Cloud API "messages" webhook: image, audio, video,
 * document, sticker, location, contacts, unsupported) for the agent or for the refusal.
 * Media ids and hashes are left out: the agent cannot fetch them without the access token.
 */
type Fields = Record<string, unknown>;
const obj = (v: unknown): Fields => (typeof v === "object" && v !== null ? (v as Fields) : {});
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const mime = (f: Fields) => (str(f.mime_type) ? `, ${str(f.mime_type)}` : "");

const KINDS: Record<string, { kind: string; describe(v: Fields): string }> = {
  image: { kind: "photo", describe: (f) => `photo${mime(f)}` },
  audio: {
    kind: "voice message",
    describe: (f) => (f.voice === true ? "voice message" : `audio file${mime(f)}`),
  },
  video: { kind: "video", describe: (f) => `video${mime(f)}` },
  document: {
    kind: "file",
    describe: (f) => `file${str(f.filename) ? ` "${str(f.filename)}"` : ""}${mime(f)}`,
  },
  sticker: {
    kind: "sticker",
    describe: (f) => (f.animated === true ? "animated sticker" : "sticker"),
  },
  location: {
    kind: "location",
    describe: (f) =>
      `location ${f.latitude ?? "?"}, ${f.longitude ?? "?"}${str(f.name) ? ` "${str(f.name)}"` : ""}${str(f.address) ? `, ${str(f.address)}` : ""}`,
  },
  contacts: {
    kind: "contact",
    describe: (_f) => "shared contact",
  },
  unsupported: {
    kind: "message of a kind WhatsApp does not pass on",
    describe: () => "a message of a kind WhatsApp does not pass on to businesses",
  },
};

export function describeAttachment(
  type: string,
  message: Fields,
): { kind: string; description: string; caption: string | null } | null {
  const entry = KINDS[type];
  if (!entry) return null;
  const fields = obj(message[type]);
  if (type === "contacts") {
    const people = Array.isArray(message.contacts) ? message.contacts.map(obj) : [];
    const names = people.map((p) => {
      const name = str(obj(p.name).formatted_name) ?? "(no name)";
      const phones = Array.isArray(p.phones)
        ? p.phones.map((x) => str(obj(x).phone)).filter(Boolean)
        : [];
      return phones.length ? `${name}, ${phones.join(", ")}` : name;
    });
    return {
      kind: entry.kind,
      description: `contact ${names.join("; ") || "(empty)"}`,
      caption: null,
    };
  }
  return { kind: entry.kind, description: entry.describe(fields), caption: str(fields.caption) };
}
