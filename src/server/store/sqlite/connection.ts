import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { StoreDataError, StoreUnavailableError } from "../types";
import { migrate } from "./migrations";

export interface SqliteConnectionOptions {
  /** How long a write waits for another connection's transaction before giving up (SQLITE_BUSY). */
  busyTimeoutMs?: number;
  /** Sees every SQL statement run; benchmarks count them. */
  onStatement?: (sql: string) => void;
}

/**
 * One better-sqlite3 connection to the store file: opened (and migrated) on first use, not
 * in the constructor, so a bad path fails every operation alike; statements prepared once;
 * failures of the file itself turned into StoreUnavailableError.
 */
export class SqliteConnection {
  readonly description: string;
  private db: Database.Database | null = null;
  private closed = false;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    readonly file: string,
    private readonly options: SqliteConnectionOptions = {},
  ) {
    this.description = `sqlite ${file}`;
  }

  sql(text: string): Database.Statement {
    const db = this.open();
    let stmt = this.statements.get(text);
    if (!stmt) {
      stmt = db.prepare(text);
      this.statements.set(text, stmt);
    }
    return stmt;
  }

  /** Runs `fn` in a BEGIN IMMEDIATE transaction: the write lock is taken up front, so two
   * read-modify-write transactions can never both read the old value. */
  tx<T>(fn: () => T): T {
    return this.open().transaction(fn).immediate();
  }

  /** The async face of a synchronous call, with backend failures mapped. */
  async run<T>(fn: () => T): Promise<T> {
    try {
      return fn();
    } catch (err) {
      throw toStoreError(err, this.description);
    }
  }

  close(): void {
    this.closed = true;
    this.statements.clear();
    this.db?.close();
    this.db = null;
  }

  private open(): Database.Database {
    if (this.closed) throw new StoreUnavailableError(`${this.description} is closed`);
    if (this.db) return this.db;
    mkdirSync(dirname(this.file), { recursive: true });
    const db = new Database(this.file, {
      timeout: this.options.busyTimeoutMs ?? 5_000,
      verbose: this.options.onStatement as ((message?: unknown) => void) | undefined,
    });
    try {
      db.pragma("journal_mode = WAL");
      migrate(db, this.file);
    } catch (err) {
      db.close();
      throw err;
    }
    this.db = db;
    return db;
  }
}

/** Codes meaning "the file cannot serve us now" (locked, unreadable, full, not a database, ...). */
const UNAVAILABLE_CODES = [
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_CANTOPEN",
  "SQLITE_IOERR",
  "SQLITE_FULL",
  "SQLITE_READONLY",
  "SQLITE_NOTADB",
  "SQLITE_CORRUPT",
  "SQLITE_PERM",
  "SQLITE_PROTOCOL",
  "SQLITE_NOMEM",
];

function toStoreError(err: unknown, description: string): unknown {
  if (err instanceof StoreUnavailableError || err instanceof StoreDataError) return err;
  const code = (err as { code?: unknown })?.code;
  const message = err instanceof Error ? err.message : String(err);
  const sqliteDown =
    err instanceof Database.SqliteError && UNAVAILABLE_CODES.some((c) => err.code.startsWith(c));
  // Node's own codes (ENOTDIR, EACCES, ...) come from creating the state directory.
  const fsDown = typeof code === "string" && /^E[A-Z]+$/.test(code);
  const closed = err instanceof TypeError && /database connection is not open/i.test(message);
  if (sqliteDown || fsDown || closed) {
    return new StoreUnavailableError(`${description} is unavailable: ${message}`, err);
  }
  return err;
}
