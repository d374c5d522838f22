import type { FleetRow } from "./fleet";
import { FEED_TIMINGS, type FeedTimings, markerFeed } from "./marker-feed";

/**
 * Server-sent events for the fleet view (docs/api.md, `GET /api/fleet/stream`): the single
 * agent's feed multiplexed. Each poll reads one marker per agent — its newest event id, one
 * store command — and pushes every row when one of them moved (marker-feed.ts).
 */
export interface FleetSource {
  /** The agents' newest event ids, in fleet order. */
  markers(): Promise<string[]>;
  rows(): Promise<FleetRow[]>;
  warn(message: string, err: unknown): void;
}

/** Pure: one string that changes when any agent's marker does (names keep order apart). */
export function fleetMarker(markers: readonly string[]): string {
  return JSON.stringify(markers);
}

export function fleetFeed(
  source: FleetSource,
  signal: AbortSignal,
  t: FeedTimings = FEED_TIMINGS,
  clock: () => number = Date.now,
): ReadableStream<Uint8Array> {
  return markerFeed(
    {
      marker: async () => fleetMarker(await source.markers()),
      snapshot: async (marker) => ({
        event: "fleet",
        data: { marker, now: clock(), agents: await source.rows() },
      }),
      warn: (message, err) => source.warn(`fleet ${message}`, err),
    },
    signal,
    t,
    clock,
  );
}
