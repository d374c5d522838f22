/**
 * Redis commands (what Upstash bills) one lifecycle step costs, as tests/store-cost.test.ts
 * measures them on the real adapter: the test fails when a measurement differs from this
 * table, and docs/store.md's cost table is generated from the same measurements. The free-plan
 * estimate (src/server/setup/hobby-fit.ts) reads these numbers, so it cannot drift either.
 */
export const REDIS_COMMANDS_PER_STEP = {
  "heartbeat (nothing to do)": 1,
  "heartbeat that extends the TTL": 2,
  "message stored (webhook)": 1,
  "message delivered (agent awake)": 14,
  "model call (gateway)": 2,
  "dashboard cost card refresh": 4,
  "sleep (snapshot + stop)": 20,
  "tick while asleep, after a change": 9,
  "tick while asleep, nothing changed": 1,
  "wake from a snapshot": 19,
} as const;

export type MeasuredStep = keyof typeof REDIS_COMMANDS_PER_STEP;
