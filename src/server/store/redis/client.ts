import { Redis, type Requester } from "@upstash/redis";
import { safeUrl, TcpRequester, type TcpRequesterOptions } from "./tcp-requester";

/** An @upstash/redis client plus what the store needs to describe and close it. */
export interface RedisConnection {
  redis: Redis;
  /** Without credentials: shown on /api/health and in error messages. */
  description: string;
  close(): Promise<void>;
}

/**
 * @upstash/redis ignores every option when constructed with a custom requester, which would
 * leave automatic JSON parsing on (turning "123" into 123). The store parses replies itself
 * with its schemas, so both transports must hand back raw replies: set it here.
 */
class RawReplyRedis extends Redis {
  constructor(requester: Requester) {
    super(requester);
    this.opts = { automaticDeserialization: false };
  }
}

/** A client on any requester (TCP, or a counting wrapper in benchmarks). */
export function requesterConnection(
  requester: Requester,
  description: string,
  close: () => Promise<void> = async () => {},
): RedisConnection {
  return { redis: new RawReplyRedis(requester), description, close };
}

/** Plain Redis/Valkey over TCP (REDIS_URL). */
export function tcpConnection(url: string, opts?: TcpRequesterOptions): RedisConnection {
  const requester = new TcpRequester(url, opts);
  return requesterConnection(requester, requester.description, () => requester.close());
}

export interface UpstashOptions {
  /** Bounds one request including the client's retries; then StoreUnavailableError. */
  requestTimeoutMs?: number;
  /** Retries after a network error (the client's default of 5 would take ~4 s to fail). */
  retries?: number;
}

/** Upstash over REST. Replies come base64-encoded and are decoded by the client. */
export function upstashConnection(
  url: string,
  token: string,
  opts: UpstashOptions = {},
): RedisConnection {
  const timeoutMs = opts.requestTimeoutMs ?? 5_000;
  const redis = new Redis({
    url,
    token,
    automaticDeserialization: false,
    // Batching is explicit (pipelines, scripts) so round trips stay as documented.
    enableAutoPipelining: false,
    enableTelemetry: false,
    retry: { retries: opts.retries ?? 2, backoff: (n) => 50 * 2 ** n },
    signal: () => AbortSignal.timeout(timeoutMs),
  });
  return { redis, description: `upstash ${safeUrl(url)}`, close: async () => {} };
}
