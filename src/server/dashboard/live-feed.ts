import type { AppContext } from "../app-context";
import { buildOverview } from "./overview";

/**
 * Server-sent events for the dashboard (docs/api.md, `GET /api/sandbox/stream`). The server
 * polls one cheap marker — the newest event's id; every status transition appends an event —
 * and pushes a fresh overview only when it moved, so creating → starting → running is never
 * missed. One store command a second while a dashboard is open (Upstash bills per command); it
 * also pushes one every `refreshMs` (heartbeat ages, sidecar health) and a ping in between
 * so the page can tell a quiet server from a gone one. The stream ends after `maxMs` (a
 * serverless function's limit); EventSource reconnects by itself.
 */
export interface LiveFeedTimings {
  pollMs: number;
  refreshMs: number;
  pingMs: number;
  maxMs: number;
}

export const LIVE_FEED: LiveFeedTimings = {
  pollMs: 1_000,
  refreshMs: 10_000,
  pingMs: 5_000,
  maxMs: 240_000,
};

/** Events read back when the marker moved: more than a wake or a sleep appends. */
const RECENT = 30;

/** Pure: one SSE message. `data` is JSON on a single line, so no line splitting is needed. */
export function sseMessage(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

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

export function liveFeed(
  ctx: AppContext,
  signal: AbortSignal,
  t: LiveFeedTimings = LIVE_FEED,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const began = Date.now();
      let last = "";
      let pushedAt = 0;
      let pingedAt = Date.now();
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
      // Reconnect soon after the stream ends or the server restarts.
      controller.enqueue(encoder.encode("retry: 1000\n\n"));
      const tick = async () => {
        if (closed) return;
        try {
          const now = Date.now();
          const seen = await marker(ctx);
          if (seen !== last || now - pushedAt >= t.refreshMs) {
            const transitions =
              seen !== last && pushedAt > 0
                ? transitionsSince(await ctx.store.events.list(RECENT), last)
                : [];
            const overview = await buildOverview(ctx);
            if (closed) return;
            controller.enqueue(
              encoder.encode(sseMessage("overview", { marker: seen, transitions, overview })),
            );
            last = seen;
            pushedAt = now;
            pingedAt = now;
          } else if (now - pingedAt >= t.pingMs) {
            controller.enqueue(encoder.encode(sseMessage("ping", { now })));
            pingedAt = now;
          }
        } catch (err) {
          // A store fault is shown as a gap, not a broken stream: say it, keep polling.
          ctx.logger.warn({ err: String(err) }, "dashboard live feed: poll failed");
          if (!closed)
            controller.enqueue(
              encoder.encode(sseMessage("fault", { message: "the store did not answer" })),
            );
        }
        if (closed) return;
        if (Date.now() - began >= t.maxMs) return close();
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
