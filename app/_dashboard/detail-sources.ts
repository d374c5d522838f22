import { api } from "./api";
import type { DashboardData } from "./types";

export type DetailKey = Exclude<keyof DashboardData, "overview">;

/** The slower-moving panels and where each one loads from; each fails on its own. */
export const DETAIL_SOURCES: { key: DetailKey; load(): Promise<unknown> }[] = [
  {
    key: "events",
    load: async () => (await api<{ events: unknown[] }>("/api/sandbox/events?limit=200")).events,
  },
  {
    key: "snapshots",
    load: async () => (await api<{ snapshots: unknown[] }>("/api/sandbox/snapshots")).snapshots,
  },
  { key: "inbox", load: () => api("/api/sandbox/inbox") },
  { key: "logs", load: () => api("/api/sandbox/logs") },
  { key: "config", load: async () => (await api<{ rows: unknown[] }>("/api/sandbox/config")).rows },
  { key: "cost", load: () => api("/api/sandbox/cost") },
];
