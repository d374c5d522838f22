/**
 * Lua for every redis operation that must be atomic; each runs as ONE EVALSHA round trip.
 * Replies use only integers, bulk strings, nil and arrays, so they decode the same over TCP
 * and over Upstash REST (which base64-encodes every string reply except "OK").
 * Scripts never decode JSON (cjson rounds numbers to 14 digits and turns [] into {}); the
 * fields they compare are kept in separate hash fields instead.
 * Inbox scripts build message keys from a prefix: fine on one Redis or Upstash, not on a
 * Redis Cluster.
 */

/** Compare-and-set. KEYS: state. ARGV: expectedVersion, json. → {1, newVersion} | {0, version, value}. */
export const CAS_STATE = `
local cur = redis.call('HMGET', KEYS[1], 'version', 'value')
local version = 0
if cur[1] then version = tonumber(cur[1]) end
if version == nil or version ~= tonumber(ARGV[1]) then
  return {0, cur[1], cur[2]}
end
redis.call('HSET', KEYS[1], 'version', version + 1, 'value', ARGV[2])
return {1, version + 1}
`;

/**
 * The heartbeat hot path: record unless a heartbeat with sentAt >= this one is stored (a
 * replay), then read the state, all in one trip. An unreadable stored sentAt is overwritten:
 * the fresh heartbeat repairs it. KEYS: heartbeat, state. ARGV: sentAt, json, retentionMs.
 * → {fresh 0|1, stateVersion, stateValue, previousValue}
 */
export const RECORD_HEARTBEAT = `
local stored = redis.call('HMGET', KEYS[1], 'sentAt', 'value')
local prev = tonumber(stored[1] or '')
local fresh = 0
if prev == nil or prev < tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'sentAt', ARGV[1], 'value', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  fresh = 1
end
local s = redis.call('HMGET', KEYS[2], 'version', 'value')
return {fresh, s[1], s[2], stored[2]}
`;

/**
 * Lock acquire with a fencing number. @upstash/lock is not used: it has no fencing tokens
 * and extends leases only in whole seconds. The fence counter is a separate key that never
 * expires, so numbers keep growing across release and expiry.
 * KEYS: lock, fence. ARGV: owner, leaseMs. → fence | nil (held by another owner).
 */
export const ACQUIRE_LOCK = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return false end
local fence = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return fence
`;

/** KEYS: lock. ARGV: owner, leaseMs. → 1 renewed | 0 not the holder. */
export const RENEW_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`;

/** KEYS: lock. ARGV: owner. → 1 released | 0 not the holder. */
export const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`;

/** Fixed window from the first hit. KEYS: counter. ARGV: windowMs. → {count, msLeft} */
export const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

/** Reads a message hash in the field order the store expects (see MESSAGE_FIELDS). */
const READ_MESSAGE = `
local function read(k)
  return redis.call('HMGET', k, 'body', 'seq', 'attempts', 'lastError', 'notBefore', 'claimedUntil')
end
`;
export const MESSAGE_FIELDS = [
  "body",
  "seq",
  "attempts",
  "lastError",
  "notBefore",
  "claimedUntil",
] as const;

/**
 * Enqueue with dedupe. A stored message with the same id, or an id seen within the window,
 * makes it a duplicate. KEYS: dedupe, message, pending, inboxSeq. ARGV: id, body, conversation,
 * windowMs. → {duplicate 0|1, fields | nil}
 */
export const ENQUEUE = `${READ_MESSAGE}
if redis.call('EXISTS', KEYS[2]) == 1 then return {1, read(KEYS[2])} end
if redis.call('EXISTS', KEYS[1]) == 1 then return {1, false} end
local seq = redis.call('INCR', KEYS[4])
redis.call('HSET', KEYS[2], 'body', ARGV[2], 'conv', ARGV[3], 'seq', seq,
  'attempts', 0, 'notBefore', 0, 'claimedUntil', 0)
redis.call('ZADD', KEYS[3], seq, ARGV[1])
redis.call('SET', KEYS[1], '1', 'PX', ARGV[4])
return {0, read(KEYS[2])}
`;

/**
 * Claims due messages in arrival order. A conversation whose earliest pending message is not
 * claimable now (claimed elsewhere, or waiting for its retry) is skipped as a whole. A pending
 * id without its hash is returned as is so the caller reports the broken key.
 * KEYS: pending. ARGV: messagePrefix, now, visibilityMs, limit. → {{id, fields}, ...}
 */
export const CLAIM = `${READ_MESSAGE}
local now = tonumber(ARGV[2])
local untilAt = now + tonumber(ARGV[3])
local limit = tonumber(ARGV[4])
local blocked = {}
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if #out >= limit then break end
  local k = ARGV[1] .. id
  local f = redis.call('HMGET', k, 'conv', 'notBefore', 'claimedUntil')
  if not f[1] then return {{id, read(k)}} end
  if not blocked[f[1]] then
    if (tonumber(f[2]) or 0) <= now and (tonumber(f[3]) or 0) <= now then
      redis.call('HSET', k, 'claimedUntil', untilAt)
      out[#out + 1] = {id, read(k)}
    else
      blocked[f[1]] = true
    end
  end
end
return out
`;

/** KEYS: pending, message. ARGV: id. → 1 released | 0 not pending. The attempt count is untouched. */
export const RELEASE = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('HSET', KEYS[2], 'claimedUntil', 0)
  return 1
end
return 0
`;

/**
 * KEYS: pending, message. ARGV: id, notBefore. → 1 | 0 not pending. Unclaims without
 * counting an attempt (the receiver asked to wait, e.g. HTTP 429 retry_after).
 */
export const DEFER = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('HSET', KEYS[2], 'claimedUntil', 0, 'notBefore', ARGV[2])
  return 1
end
return 0
`;

/** KEYS: pending, message. ARGV: id. → 1 removed | 0 not pending. The dedupe marker stays. */
export const ACK = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('DEL', KEYS[2])
  return 1
end
return 0
`;

/**
 * KEYS: pending, dead, message, deadSeq. ARGV: id, error, maxAttempts, retryAt.
 * → 'retry' | 'dead' | 'missing'
 */
export const FAIL = `
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 'missing' end
local attempts = (tonumber(redis.call('HGET', KEYS[3], 'attempts') or '') or 0) + 1
redis.call('HSET', KEYS[3], 'attempts', attempts, 'lastError', ARGV[2], 'claimedUntil', 0)
if attempts >= tonumber(ARGV[3]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), ARGV[1])
  return 'dead'
end
redis.call('HSET', KEYS[3], 'notBefore', ARGV[4])
return 'retry'
`;

/** Back to pending at its original seq. KEYS: dead, pending, message. ARGV: id. → 1 | 0 */
export const RETRY_DEAD = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
local seq = tonumber(redis.call('HGET', KEYS[3], 'seq') or '') or 0
redis.call('HSET', KEYS[3], 'attempts', 0, 'notBefore', 0, 'claimedUntil', 0)
redis.call('ZADD', KEYS[2], seq, ARGV[1])
return 1
`;

/** Lists a queue with its messages in one trip. KEYS: zset. ARGV: messagePrefix, limit, '1' = newest first. */
export const LIST_MESSAGES = `${READ_MESSAGE}
local limit = tonumber(ARGV[2])
local ids
if ARGV[3] == '1' then
  ids = redis.call('ZREVRANGE', KEYS[1], 0, limit - 1)
else
  ids = redis.call('ZRANGE', KEYS[1], 0, limit - 1)
end
local out = {}
for i, id in ipairs(ids) do out[i] = {id, read(ARGV[1] .. id)} end
return out
`;

/**
 * Holds a reservation in a day and a month unless a cap would be crossed, and reads the
 * deliveries open now (who the call is for) and the instance state (is the caller's sandbox
 * the running one) in the same trip.
 * KEYS: day, month, delivering, state. ARGV: amount, dayLimit (-1: none), monthLimit (-1: none),
 * dayTtlMs, monthTtlMs, now.
 * → {held 0|1, dayTotal, monthTotal, raise, {open delivery json...}, {stateVersion, stateValue},
 * reached 0|1 day|2 month} (totals before the hold). A refusal marks the period whose cap it hit
 * reached at that cap (field `reached`); `reached` is non-zero only for the first to mark it.
 */
export const USAGE_RESERVE = `
local st = redis.call('HMGET', KEYS[4], 'version', 'value')
local amount = tonumber(ARGV[1])
local dayLimit = tonumber(ARGV[2])
local monthLimit = tonumber(ARGV[3])
local now = tonumber(ARGV[6])
local open = {}
local marks = redis.call('HGETALL', KEYS[3])
for i = 1, #marks, 2 do
  local f = marks[i]
  if string.sub(f, 1, 2) == 'u|' and tonumber(marks[i + 1]) > now then
    local v = redis.call('HGET', KEYS[3], 'v|' .. string.sub(f, 3))
    if v then open[#open + 1] = v end
  end
end
local d = redis.call('HMGET', KEYS[1], 'total', 'raise')
local day = tonumber(d[1] or '0')
local raise = tonumber(d[2] or '0')
local month = tonumber(redis.call('HGET', KEYS[2], 'total') or '0')
local overDay = dayLimit >= 0 and day + amount > dayLimit + raise
if overDay or (monthLimit >= 0 and month + amount > monthLimit) then
  local key, cap, ttl, which = KEYS[2], monthLimit, ARGV[5], 2
  if overDay then key, cap, ttl, which = KEYS[1], dayLimit + raise, ARGV[4], 1 end
  if tonumber(redis.call('HGET', key, 'reached') or '-1') == cap then which = 0 else
    redis.call('HSET', key, 'reached', string.format('%d', cap))
    redis.call('PEXPIRE', key, ttl)
  end
  return {0, day, month, raise, open, st, which}
end
redis.call('HINCRBY', KEYS[1], 'total', amount)
redis.call('HINCRBY', KEYS[2], 'total', amount)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return {1, day, month, raise, open, st, 0}
`;

/**
 * Marks a delivery open and drops marks that ran out (their server died mid-delivery).
 * KEYS: delivering. ARGV: id, until, json, now, ttlMs. → 1.
 */
export const OPEN_DELIVERY = `
local marks = redis.call('HGETALL', KEYS[1])
local now = tonumber(ARGV[4])
for i = 1, #marks, 2 do
  local f = marks[i]
  if string.sub(f, 1, 2) == 'u|' and tonumber(marks[i + 1]) <= now then
    redis.call('HDEL', KEYS[1], f, 'v|' .. string.sub(f, 3))
  end
end
redis.call('HSET', KEYS[1], 'u|' .. ARGV[1], ARGV[2], 'v|' .. ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

/**
 * Replaces a hold by the real cost, adds the call to its model's and its conversation's
 * figures, and flags the first settlement to reach a warning line. KEYS: day, month.
 * ARGV: delta, model ('' : release only), cost, input, output, cached, warnDayAt (-1: none),
 * warnMonthAt (-1: none), conversation ('' : unattributed).
 * → {dayWarned 0|1, monthWarned 0|1}.
 */
export const USAGE_SETTLE = `
local out = {}
for i = 1, 2 do
  local total = redis.call('HINCRBY', KEYS[i], 'total', ARGV[1])
  if ARGV[2] ~= '' then
    redis.call('HINCRBY', KEYS[i], 'cost|' .. ARGV[2], ARGV[3])
    redis.call('HINCRBY', KEYS[i], 'calls|' .. ARGV[2], 1)
    redis.call('HINCRBY', KEYS[i], 'in|' .. ARGV[2], ARGV[4])
    redis.call('HINCRBY', KEYS[i], 'out|' .. ARGV[2], ARGV[5])
    redis.call('HINCRBY', KEYS[i], 'cached|' .. ARGV[2], ARGV[6])
    redis.call('HINCRBY', KEYS[i], 'ccost|' .. ARGV[9], ARGV[3])
    redis.call('HINCRBY', KEYS[i], 'ccalls|' .. ARGV[9], 1)
  end
  local line = tonumber(ARGV[6 + i])
  out[i] = 0
  if line >= 0 and total >= line then out[i] = redis.call('HSETNX', KEYS[i], 'warned', 1) end
end
return out
`;

/**
 * The quiet tick's one command: the state and both queues' pending counts.
 * KEYS: state, inbox pending, outbox pending. → {version, value, inboxPending, outboxPending}
 */
export const GLANCE = `
local s = redis.call('HMGET', KEYS[1], 'version', 'value')
return {s[1], s[2], redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3])}
`;
