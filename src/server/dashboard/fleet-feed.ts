import type { FleetRow } from "./fleet";
import { LIVE_FEED, type LiveFeedTimings, sseMessage } from "./live-feed";

/**
 * Server-sent events for the fleet view (docs/api.md, `GET /api/fleet/stream`): the single
 * agent's feed (live-feed.ts) multiplexed. Each poll reads one marker per agent — its newest
 * event id, one store command — and pushes every row only when one of them moved, or every
 * `refreshMs` (the "sleeps in" forecasts move with heartbeats, which are not events), with a
 * ping in between. It ends after `maxMs`; EventSource reconnects.
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
  t: LiveFeedTimings = LIVE_FEED,
  clock: () => number = Date.now,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const began = clock();
      let last: string | null = null;
      let pushedAt = 0;
      let pingedAt = clock();
      const send = (event: string, data: unknown) => {
        if (!closed) controller.enqueue(encoder.encode(sseMessage(event, data)));
      };
      const close = () => {
        if (closed) return;
        closed = true;
        clearTimeout(timer);
        try {
          controller.close();
        } catch {
          // Already closed by the client going away.
        }
      };
      signal.addEventListener("abort", close, { once: true });
      controller.enqueue(encoder.encode("retry: 1000\n\n"));
      const tick = async () => {
        if (closed) return;
        try {
          const now = clock();
          const seen = fleetMarker(await source.markers());
          if (seen !== last || now - pushedAt >= t.refreshMs) {
            const agents = await source.rows();
            send("fleet", { marker: seen, now: clock(), agents });
            last = seen;
            pushedAt = now;
            pingedAt = now;
          } else if (now - pingedAt >= t.pingMs) {
            send("ping", { now });
            pingedAt = now;
          }
        } catch (err) {
          // A store fault is a gap the page shows, not a broken stream.
          source.warn("fleet live feed: poll failed", err);
          send("fault", { message: "the store did not answer" });
        }
        if (closed) return;
        if (clock() - began >= t.maxMs) return close();
        timer = setTimeout(tick, t.pollMs);
      };
      void tick();
    },
    cancel() {
      closed = true;
      clearTimeout(timer);
    },
  });
}
