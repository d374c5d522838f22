import { api } from "./api";
import type { DashboardData } from "./types";

export type DetailKey = Exclude<keyof DashboardData, "overview">;

/**
 * The slower-moving panels and where each one loads from; each fails on its own. `at` turns a
 * plain operator path into the shown agent's (agent-context.tsx).
 */
export const DETAIL_SOURCES: {
  key: DetailKey;
  load(at: (path: string) => string): Promise<unknown>;
}[] = [
  {
    key: "events",
    load: async (at) =>
      (await api<{ events: unknown[] }>(at("/api/sandbox/events?limit=200"))).events,
  },
  {
    key: "snapshots",
    load: async (at) =>
      (await api<{ snapshots: unknown[] }>(at("/api/sandbox/snapshots"))).snapshots,
  },
  { key: "inbox", load: (at) => api(at("/api/sandbox/inbox")) },
  { key: "logs", load: (at) => api(at("/api/sandbox/logs")) },
  {
    key: "config",
    load: async (at) => (await api<{ rows: unknown[] }>(at("/api/sandbox/config"))).rows,
  },
  { key: "cost", load: (at) => api(at("/api/sandbox/cost")) },
];
