/**
 * The polling behind the dashboard's server-sent events (docs/api.md, `GET /api/sandbox/stream`
 * and `GET /api/fleet/stream`): poll one cheap marker that moves when something changed, push a
 * fresh snapshot only when it moved or every `refreshMs` (heartbeats move forecasts without an
 * event), a ping in between so the page can tell a quiet server from a gone one, and end after
 * `maxMs` (a serverless function's limit); EventSource reconnects by itself.
 */
export interface FeedTimings {
  pollMs: number;
  refreshMs: number;
  pingMs: number;
  maxMs: number;
}

export const FEED_TIMINGS: FeedTimings = {
  pollMs: 1_000,
  refreshMs: 10_000,
  pingMs: 5_000,
  maxMs: 240_000,
};

export interface MarkerSource {
  /** What says "something changed": one store read per poll (Upstash bills per command). */
  marker(): Promise<string>;
  /** The message to push; `previous` is the marker pushed last (null before the first push). */
  snapshot(seen: string, previous: string | null): Promise<{ event: string; data: unknown }>;
  warn(message: string, err: unknown): void;
}

/** Pure: one SSE message. `data` is JSON on a single line, so no line splitting is needed. */
export function sseMessage(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function markerFeed(
  source: MarkerSource,
  signal: AbortSignal,
  t: FeedTimings = FEED_TIMINGS,
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
      // Reconnect soon after the stream ends or the server restarts.
      controller.enqueue(encoder.encode("retry: 1000\n\n"));
      const tick = async () => {
        if (closed) return;
        try {
          const now = clock();
          const seen = await source.marker();
          if (seen !== last || now - pushedAt >= t.refreshMs) {
            const { event, data } = await source.snapshot(seen, last);
            send(event, data);
            last = seen;
            pushedAt = now;
            pingedAt = now;
          } else if (now - pingedAt >= t.pingMs) {
            send("ping", { now });
            pingedAt = now;
          }
        } catch (err) {
          // A store fault is a gap the page shows, not a broken stream: say it, keep polling.
          source.warn("live feed: poll failed", err);
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
