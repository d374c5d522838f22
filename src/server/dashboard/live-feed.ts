import type { AppContext } from "../app-context";
import { FEED_TIMINGS, type FeedTimings, markerFeed } from "./marker-feed";
import { buildOverview } from "./overview";

/** Events read back when the marker moved: more than a wake or a sleep appends. */
const RECENT = 30;

/** What says "something changed": the newest event (state patches such as TTL extends are
 * not transitions; the periodic refresh shows them). */
async function marker(ctx: AppContext): Promise<string> {
  const [newest] = await ctx.store.events.list(1);
  return newest?.id ?? "";
}

export interface Transition {
  status: string;
  at: number;
}

/**
 * Pure: the statuses entered after the event `sinceId`, oldest first, from a newest-first
 * list. A wake can pass creating and starting between two polls; these make sure the page
 * still sees them.
 */
export function transitionsSince(
  newestFirst: readonly { id: string; type: string; at: number }[],
  sinceId: string,
): Transition[] {
  const out: Transition[] = [];
  for (const e of newestFirst) {
    if (e.id === sinceId) break;
    if (e.type.startsWith("status.")) out.push({ status: e.type.slice(7), at: e.at });
  }
  return out.reverse();
}

/**
 * Server-sent events for the dashboard (docs/api.md, `GET /api/sandbox/stream`): the marker is
 * the newest event's id — every status transition appends an event — so creating → starting →
 * running is never missed; a fresh overview is pushed when it moved (marker-feed.ts).
 */
export function liveFeed(
  ctx: AppContext,
  signal: AbortSignal,
  t: FeedTimings = FEED_TIMINGS,
): ReadableStream<Uint8Array> {
  return markerFeed(
    {
      marker: () => marker(ctx),
      snapshot: async (seen, previous) => {
        const transitions =
          previous !== null && seen !== previous
            ? transitionsSince(await ctx.store.events.list(RECENT), previous)
            : [];
        const overview = await buildOverview(ctx);
        return { event: "overview", data: { marker: seen, transitions, overview } };
      },
      warn: (message, err) => ctx.logger.warn({ err: String(err) }, `dashboard ${message}`),
    },
    signal,
    t,
  );
}
