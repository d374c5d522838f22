// Shapes of the operator JSON API, taken from the server's own types (type-only imports,
// erased at build time, so no server code reaches the browser bundle).

import type { CostSummary } from "@/src/server/dashboard/cost";
import type { ConfigRow } from "@/src/server/dashboard/effective-config";
import type { Transition } from "@/src/server/dashboard/live-feed";
import type { Overview } from "@/src/server/dashboard/overview";
import type { LifecycleEvent } from "@/src/server/domain/events";
import type { InboxMessage } from "@/src/server/domain/inbox-message";
import type { LogTail } from "@/src/server/operator/logs";
import type { SnapshotInfo } from "@/src/server/providers/types";

export type {
  ConfigRow,
  CostSummary,
  InboxMessage,
  LifecycleEvent,
  LogTail,
  Overview,
  SnapshotInfo,
  Transition,
};

export interface InboxView {
  counts: { pending: number; dead: number };
  pending: InboxMessage[];
  dead: InboxMessage[];
}

/** What the page has loaded so far; null until the first answer arrives. */
export interface DashboardData {
  overview: Overview | null;
  events: LifecycleEvent[] | null;
  snapshots: SnapshotInfo[] | null;
  inbox: InboxView | null;
  logs: LogTail | null;
  config: ConfigRow[] | null;
  cost: CostSummary | null;
}
