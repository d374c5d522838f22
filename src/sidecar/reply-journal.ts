import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** One answered delivery: what the daemon sent back, so a redelivery gets the same answer. */
export interface JournalEntry {
  /** Epoch ms at which the answer was recorded. */
  at: number;
  status: number;
  contentType: string | null;
  /** The daemon's answer body (utf-8; replies are text or JSON). */
  body: string;
}

export interface ReplyJournalOptions {
  /** A JSON file inside the sandbox root, so a snapshot carries it (issue 23, item 4). */
  path: string;
  maxEntries?: number;
  maxAgeMs?: number;
  /** Answers larger than this are not kept (a redelivery of one is answered by the daemon). */
  maxBodyBytes?: number;
  now?: () => number;
}

export const JOURNAL_DEFAULTS = {
  maxEntries: 1_000,
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
  maxBodyBytes: 256 * 1024,
} as const;

/**
 * Delivered message ids and their answers. It holds only the daemon's answers (never request
 * headers, so no token), and is bounded by count and age. Each write replaces the file
 * atomically (temp file + rename), so a crash or snapshot mid-write leaves the previous one.
 */
export class ReplyJournal {
  private readonly entries = new Map<string, JournalEntry>();
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  readonly maxBodyBytes: number;
  private readonly now: () => number;

  constructor(private readonly opts: ReplyJournalOptions) {
    this.maxEntries = opts.maxEntries ?? JOURNAL_DEFAULTS.maxEntries;
    this.maxAgeMs = opts.maxAgeMs ?? JOURNAL_DEFAULTS.maxAgeMs;
    this.maxBodyBytes = opts.maxBodyBytes ?? JOURNAL_DEFAULTS.maxBodyBytes;
    this.now = opts.now ?? Date.now;
    for (const [id, entry] of readEntries(opts.path)) this.entries.set(id, entry);
  }

  /** The recorded answer for `id`, unless it has aged out. */
  get(id: string): JournalEntry | undefined {
    const entry = this.entries.get(id);
    if (!entry || this.now() - entry.at > this.maxAgeMs) return undefined;
    return entry;
  }

  /** Records an answer and persists the journal; returns false when it is too large to keep. */
  put(id: string, answer: Omit<JournalEntry, "at">): boolean {
    if (Buffer.byteLength(answer.body) > this.maxBodyBytes) return false;
    this.entries.delete(id); // re-inserted last: Map order is age order
    this.entries.set(id, { ...answer, at: this.now() });
    this.prune();
    this.write();
    return true;
  }

  get size(): number {
    return this.entries.size;
  }

  private prune(): void {
    const oldest = this.now() - this.maxAgeMs;
    for (const [id, entry] of this.entries) {
      if (this.entries.size > this.maxEntries || entry.at < oldest) this.entries.delete(id);
      else break;
    }
  }

  private write(): void {
    mkdirSync(dirname(this.opts.path), { recursive: true });
    const tmp = `${this.opts.path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ version: 1, entries: [...this.entries] }), { mode: 0o600 });
    renameSync(tmp, this.opts.path);
  }
}

/** Pure-ish: the entries of a journal file; a missing or damaged file is an empty journal. */
function readEntries(path: string): [string, JournalEntry][] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return [];
  }
  const list = (raw as { entries?: unknown })?.entries;
  if (!Array.isArray(list)) return [];
  return list.filter(isEntry);
}

function isEntry(v: unknown): v is [string, JournalEntry] {
  if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== "string") return false;
  const e = v[1] as Partial<JournalEntry> | null;
  return (
    typeof e === "object" &&
    e !== null &&
    typeof e.at === "number" &&
    typeof e.status === "number" &&
    typeof e.body === "string" &&
    (e.contentType === null || typeof e.contentType === "string")
  );
}
