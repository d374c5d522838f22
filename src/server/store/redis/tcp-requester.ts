import { errors, type Requester, type UpstashRequest, type UpstashResponse } from "@upstash/redis";
import type IORedis from "ioredis";
import { StoreUnavailableError } from "../types";

/**
 * Lets the @upstash/redis client talk to a plain Redis/Valkey over TCP (REDIS_URL): its
 * requests — one command array, or `pipeline` / `multi-exec` batches — run on an ioredis
 * connection and come back in the REST API's shapes, so the redis adapter has one code path.
 */

type Reply = UpstashResponse<unknown>;
type Args = (string | number)[];

/** Runs one REST-shaped request on `conn`. Reply errors become `{ error }` entries; a
 * whole-request failure (bad body, aborted transaction) throws UpstashError like the REST
 * client does on a 400; connection errors propagate untouched. Shared with the test proxy. */
export async function executeUpstashRequest(
  conn: IORedis,
  req: Pick<UpstashRequest, "path" | "body">,
): Promise<Reply | Reply[]> {
  const mode = req.path?.join("/") ?? "";
  if (mode === "") {
    const [name, ...args] = commandArgs(req.body);
    try {
      return { result: normalize(await conn.call(name, ...args)) };
    } catch (err) {
      if (isReplyError(err)) return { error: err.message };
      throw err;
    }
  }
  if (mode !== "pipeline" && mode !== "multi-exec") {
    throw new errors.UpstashError(`unsupported request path "${mode}"`);
  }
  if (!Array.isArray(req.body) || req.body.length === 0) {
    throw new errors.UpstashError(`${mode} needs a non-empty array of commands`);
  }
  const batch = mode === "pipeline" ? conn.pipeline() : conn.multi();
  // call() takes any command name in any case (the array form wants ioredis method names).
  for (const [name, ...args] of req.body.map(commandArgs)) batch.call(name, ...args);
  let results: [Error | null, unknown][] | null;
  try {
    results = await batch.exec();
  } catch (err) {
    // EXECABORT: a queued command was rejected, so nothing ran.
    if (isReplyError(err)) throw new errors.UpstashError(err.message);
    throw err;
  }
  if (!results) throw new errors.UpstashError(`${mode} was aborted`);
  return results.map(([err, result]) => {
    if (!err) return { result: normalize(result) };
    if (isReplyError(err)) return { error: err.message };
    throw err; // the connection failed part-way
  });
}

export interface TcpRequesterOptions {
  /** Bounds the initial TCP connect (ioredis connectTimeout). */
  connectTimeoutMs?: number;
  /** Bounds each command; a hung server becomes StoreUnavailableError instead of a hang. */
  commandTimeoutMs?: number;
}

/**
 * ioredis, loaded at the first connect: a server on SQLite or on Upstash's REST API never
 * needs it, and loading it cost every server start ~70 ms (docs/architecture.md, "Start-up").
 */
let ioredis: Promise<typeof IORedis> | null = null;
function loadIORedis(): Promise<typeof IORedis> {
  ioredis ??= import("ioredis").then((m) => m.default);
  return ioredis;
}

export class TcpRequester implements Requester {
  readonly description: string;
  private conn: IORedis | null = null;
  private connecting: Promise<void> | null = null;
  private lastError: Error | null = null;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly opts: TcpRequesterOptions = {},
  ) {
    this.description = `redis ${safeUrl(url)}`;
  }

  async request<TResult = unknown>(req: UpstashRequest): Promise<UpstashResponse<TResult>> {
    const conn = await this.ready();
    try {
      // Pipelines answer with one entry per command; the client expects that array here.
      return (await executeUpstashRequest(conn, req)) as UpstashResponse<TResult>;
    } catch (err) {
      if (err instanceof errors.UpstashError) throw err;
      throw this.unavailable(err);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.conn?.disconnect();
  }

  private async connection(): Promise<IORedis> {
    if (this.conn) return this.conn;
    const Client = await loadIORedis();
    if (this.conn) return this.conn; // another request created it meanwhile
    const conn = new Client(this.url, {
      lazyConnect: true,
      // Fail fast while Redis is down instead of queueing: callers get a 503 at once.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      connectTimeout: this.opts.connectTimeoutMs ?? 2_000,
      commandTimeout: this.opts.commandTimeoutMs ?? 5_000,
      // Reconnects on its own in the background; requests fail fast meanwhile.
      retryStrategy: (times) => Math.min(50 * 2 ** times, 2_000),
    });
    // Without a listener ioredis prints every failed reconnect; the last one is kept for messages.
    conn.on("error", (err: Error) => {
      this.lastError = err;
    });
    this.conn = conn;
    return conn;
  }

  /** Connects on first use; afterwards a lost connection fails requests until ioredis is back. */
  private async ready(): Promise<IORedis> {
    if (this.closed) throw new StoreUnavailableError(`${this.description}: store is closed`);
    const conn = await this.connection();
    // Closed while ioredis loaded: nothing may connect after close().
    if (this.closed) {
      conn.disconnect();
      throw new StoreUnavailableError(`${this.description}: store is closed`);
    }
    if (conn.status === "ready") return conn;
    // "end": ioredis gave up (e.g. the host did not resolve); start over on demand.
    if (conn.status === "wait" || conn.status === "end") {
      this.connecting = conn.connect().finally(() => {
        this.connecting = null;
      });
    }
    if (this.connecting) {
      try {
        await this.connecting;
        return conn;
      } catch (err) {
        throw this.unavailable(err);
      }
    }
    throw this.unavailable(this.lastError ?? new Error(`connection is ${conn.status}`));
  }

  private unavailable(err: unknown): StoreUnavailableError {
    const message = err instanceof Error ? err.message : String(err);
    return new StoreUnavailableError(`${this.description} is unreachable: ${message}`, err);
  }
}

function commandArgs(body: unknown): [string, ...Args] {
  if (!Array.isArray(body) || body.length === 0 || typeof body[0] !== "string") {
    throw new errors.UpstashError("a command must be a non-empty array starting with its name");
  }
  const [name, ...rest] = body as [string, ...unknown[]];
  return [name, ...rest.map((a) => (typeof a === "number" ? a : String(a)))];
}

/** Makes ioredis replies look like REST ones: HGETALL comes back flat, Buffers as text. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (Buffer.isBuffer(value)) return value.toString("utf8");
  if (value !== null && typeof value === "object") return Object.entries(value).flat();
  return value;
}

function isReplyError(err: unknown): err is Error {
  return err instanceof Error && err.name === "ReplyError";
}

/** host:port (and db) only: never the password in messages or /api/health. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.length > 1 ? u.pathname : ""}`;
  } catch {
    return "(invalid url)";
  }
}
