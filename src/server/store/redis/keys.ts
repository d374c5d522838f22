/**
 * Every redis key ClawRun uses, all under `clawrun:<instance>:` so deployments can share one
 * Redis. Each family has its own fixed segment right after the prefix, so a user-chosen part
 * (lock name, sandbox id, message id) can never produce another family's key.
 */
export interface RedisKeys {
  prefix: string;
  /** Hash {version, value}. */
  state: string;
  /** String holding the owner token, with the lease as its PX expiry. */
  lock(name: string): string;
  /** Counter behind a lock's fencing numbers; never expires, never reset. */
  fence(name: string): string;
  /** Hash {sentAt, value}, expiring after the heartbeat retention. */
  heartbeat(sandboxId: string): string;
  /** List of event JSON, newest first, trimmed to the cap. */
  events: string;
  /** Sorted set of interval JSON scored by end time, trimmed to the cap. */
  awake: string;
  /** The keys of the inbox (channel messages) and of the outbox (replies). */
  queue(name: QueueName): QueueKeys;
  /** String holding the schedule JSON. */
  schedule: string;
  /** Fixed-window counter, expiring at the end of its window. */
  hit(key: string): string;
  /** A small record (string), optionally expiring. */
  kv(key: string): string;
  /** Hash of a UTC day's or month's model spend {total, raise, warned, cost|<model>, ...}. */
  usage(period: "d" | "m", id: string): string;
  /** Hash of deliveries under way {u|<id>: until, v|<id>: json}. */
  delivering: string;
}

export type QueueName = "inbox" | "outbox";

/** One durable queue's keys. */
export interface QueueKeys {
  /** Counter giving messages their arrival order (seq). */
  seq: string;
  /** Counter giving dead-letter entries their order. */
  deadSeq: string;
  /** Sorted set of pending message ids scored by seq. */
  pending: string;
  /** Sorted set of dead message ids scored by dead-letter order. */
  dead: string;
  /** Prefix of message hashes (scripts append the id). */
  messagePrefix: string;
  /** Hash {body, conv, seq, attempts, lastError, notBefore, claimedUntil}. */
  message(id: string): string;
  /** Marker that an id was seen, expiring after the dedupe window. */
  dedupe(id: string): string;
}

/** The inbox keeps the key names it always had; the outbox's live under `outbox:`. */
function queueKeys(p: string, name: QueueName): QueueKeys {
  const q = name === "inbox" ? p : `${p}outbox:`;
  return {
    seq: name === "inbox" ? `${p}inbox-seq` : `${q}seq`,
    deadSeq: `${q}dead-seq`,
    pending: `${q}pending`,
    dead: `${q}dead`,
    messagePrefix: `${q}msg:`,
    message: (id) => `${q}msg:${id}`,
    dedupe: (id) => `${q}dedupe:${id}`,
  };
}

export function redisKeys(instance: string): RedisKeys {
  const p = `clawrun:${instance}:`;
  return {
    prefix: p,
    state: `${p}state`,
    lock: (name) => `${p}lock:${name}`,
    fence: (name) => `${p}fence:${name}`,
    heartbeat: (sandboxId) => `${p}hb:${sandboxId}`,
    events: `${p}events`,
    awake: `${p}awake`,
    queue: (name) => queueKeys(p, name),
    schedule: `${p}schedule`,
    hit: (key) => `${p}hit:${key}`,
    kv: (key) => `${p}kv:${key}`,
    usage: (period, id) => `${p}usage:${period}:${id}`,
    delivering: `${p}delivering`,
  };
}
