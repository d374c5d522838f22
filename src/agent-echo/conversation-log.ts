import { createHash } from "node:crypto";
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Per-conversation message files (`conversations/<name>.jsonl`): real file activity and real
 * state that must survive a snapshot. Appends are idempotent by message id, so a redelivery
 * after an unacknowledged attempt does not count twice.
 */
export class ConversationLog {
  private readonly loaded = new Map<string, Set<string>>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly dir: string) {}

  /** Serialized so concurrent deliveries of one conversation cannot interleave their counts. */
  append(
    conversation: string,
    id: string,
    text: string,
    at: number,
  ): Promise<{ count: number; duplicate: boolean }> {
    const run = this.queue.then(() => this.appendNow(conversation, id, text, at));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async appendNow(conversation: string, id: string, text: string, at: number) {
    const ids = await this.ids(conversation);
    if (ids.has(id)) return { count: ids.size, duplicate: true };
    await mkdir(this.dir, { recursive: true });
    await appendFile(this.file(conversation), `${JSON.stringify({ id, text, at })}\n`);
    ids.add(id);
    return { count: ids.size, duplicate: false };
  }

  private async ids(conversation: string): Promise<Set<string>> {
    const cached = this.loaded.get(conversation);
    if (cached) return cached;
    const ids = new Set<string>();
    try {
      const text = await readFile(this.file(conversation), "utf8");
      for (const line of text.split("\n")) {
        if (!line) continue;
        try {
          ids.add(String((JSON.parse(line) as { id: unknown }).id));
        } catch {
          // A torn last line (crash mid-append) is skipped rather than failing every later message.
        }
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    this.loaded.set(conversation, ids);
    return ids;
  }

  private file(conversation: string): string {
    return join(this.dir, `${conversationFileName(conversation)}.jsonl`);
  }
}

/**
 * A file name for a conversation name from a chat platform, one-to-one: letters, digits, "-"
 * and "_" stay (names already on disk keep their files), every other UTF-8 byte becomes %XX,
 * so `team/alice`, `team_alice`, `日本` and `中国` all get files of their own. A name whose
 * encoding would pass the file system's limit is cut and suffixed with a hash of the whole
 * name ("~" cannot occur in an encoded name, so the two forms never meet).
 */
export function conversationFileName(conversation: string): string {
  const encoded = [...Buffer.from(conversation, "utf8")]
    .map((b) =>
      /[A-Za-z0-9_-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("");
  if (encoded.length === 0) return "%";
  if (encoded.length <= 160) return encoded;
  const hash = createHash("sha256").update(conversation).digest("hex").slice(0, 32);
  return `${encoded.slice(0, 120)}~${hash}`;
}
