/**
 * Vercel Sandbox list prices for the dashboard's cost card. They change: the set carries the
 * date it was read and where, so the page can say "at the rates of …". Pro/Enterprise list
 * prices; Hobby includes a monthly allotment (5 CPU-hours, 420 GB-hours, 5,000 creations) at
 * no cost.
 */
export const VERCEL_SANDBOX_PRICES = {
  asOf: "2025-11-26",
  source: "https://vercel.com/docs/vercel-sandbox/pricing",
  /** Active CPU: billed only while code uses the CPU (I/O waits are free), per vCPU-hour. */
  activeCpuPerHour: 0.128,
  /** Provisioned memory, per GB-hour the sandbox runs. */
  memoryPerGbHour: 0.0212,
  /** Per sandbox created (list price $0.60 per million). */
  perCreation: 0.6 / 1_000_000,
  /** Snapshot storage, per GB-month. */
  storagePerGbMonth: 0.08,
  /** Vercel allocates 2 GB of memory per vCPU. */
  memoryGbPerVcpu: 2,
  /** Pro's longest sandbox run: an always-on agent is re-created at least this often. */
  maxRunMs: 5 * 60 * 60_000,
} as const;
