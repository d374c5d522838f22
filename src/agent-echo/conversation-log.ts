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
    // Conversation names come from chat platforms: keep them to a safe file name.
    const safe = conversation.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 120) || "_";
    return join(this.dir, `${safe}.jsonl`);
  }
}
