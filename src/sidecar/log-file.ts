import { closeSync, fstatSync, mkdirSync, openSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";

export type LogLevel = "INFO" | "WARN" | "ERROR";

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface LogFileOptions {
  path: string;
  /** Rotate once the file would grow past this; one `.1` file is kept, so at most ~2x on disk. */
  maxBytes: number;
  /** Strings replaced with [redacted] in every line (the heartbeat secret, defensively). */
  redact?: string[];
  now?: () => Date;
}

/** Longest line written; a daemon printing megabytes without a newline must not bloat one line. */
export const MAX_LINE_CHARS = 8192;

/**
 * Append-only line log with size-bounded rotation. Writes are synchronous: volume is low
 * (events plus daemon output) and a crash must not lose the lines that explain it.
 */
export class LogFile implements Logger {
  private fd: number;
  private size: number;
  private closed = false;
  private readonly redact: string[];
  private readonly now: () => Date;

  constructor(private readonly opts: LogFileOptions) {
    mkdirSync(dirname(opts.path), { recursive: true });
    this.fd = openSync(opts.path, "a");
    this.size = fstatSync(this.fd).size;
    // Short strings would redact innocent text; real secrets are long.
    this.redact = (opts.redact ?? []).filter((s) => s.length >= 8);
    this.now = opts.now ?? (() => new Date());
  }

  info(message: string): void {
    this.write("INFO", message);
  }

  warn(message: string): void {
    this.write("WARN", message);
  }

  error(message: string): void {
    this.write("ERROR", message);
  }

  write(level: LogLevel, message: string): void {
    // After close the fd number may belong to another file: drop late lines (daemon output).
    if (this.closed) return;
    let text = message.replace(/[\r\n]+/g, " ");
    for (const secret of this.redact) text = text.replaceAll(secret, "[redacted]");
    if (text.length > MAX_LINE_CHARS) text = `${text.slice(0, MAX_LINE_CHARS)}…[truncated]`;
    const line = Buffer.from(`${this.now().toISOString()} ${level} ${text}\n`);
    if (this.size > 0 && this.size + line.length > this.opts.maxBytes) this.rotate();
    if (this.closed) return;
    try {
      writeSync(this.fd, line);
      this.size += line.length;
    } catch {
      // A full or read-only disk must not take the sidecar (and so the daemon) down.
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }

  private rotate(): void {
    try {
      closeSync(this.fd);
      renameSync(this.opts.path, `${this.opts.path}.1`);
    } catch {
      // If the rename fails we reopen and truncate below rather than grow without bound.
    }
    try {
      this.fd = openSync(this.opts.path, "w");
      this.size = 0;
    } catch {
      this.closed = true; // cannot reopen (disk gone): stop logging rather than crash
    }
  }
}

/**
 * Splits a byte stream into lines for the log. A partial line is held until its newline
 * arrives (or flushed at end of stream); an over-long one is emitted in chunks.
 */
export class LineSplitter {
  private pending = "";

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer | string): void {
    this.pending += chunk.toString();
    let nl = this.pending.indexOf("\n");
    while (nl !== -1) {
      this.onLine(this.pending.slice(0, nl).replace(/\r$/, ""));
      this.pending = this.pending.slice(nl + 1);
      nl = this.pending.indexOf("\n");
    }
    while (this.pending.length > MAX_LINE_CHARS) {
      this.onLine(this.pending.slice(0, MAX_LINE_CHARS));
      this.pending = this.pending.slice(MAX_LINE_CHARS);
    }
  }

  flush(): void {
    if (this.pending.length > 0) this.onLine(this.pending);
    this.pending = "";
  }
}
