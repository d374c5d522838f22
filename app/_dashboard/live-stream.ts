"use client";

import type { Dispatch, SetStateAction } from "react";
import { ApiError, api } from "./api";

/** No message (data or ping) for this long: the server is treated as unreachable. */
const SILENT_MS = 15_000;
/** A stream the server refused (401, 503) is not retried by EventSource itself. */
const REOPEN_MS = 2_000;

export interface LiveState {
  /** When the last message arrived (browser clock); null before the first. */
  updatedAt: number | null;
  /** Since when the server has been unreachable; null while connected. */
  staleSince: number | null;
  /** Counts reconnections, so stale errors elsewhere can be cleared on each. */
  reconnects: number;
}

export const NOT_HEARD: LiveState = { updatedAt: null, staleSince: null, reconnects: 0 };

export interface StreamWatch {
  /** The server-sent events to follow (docs/api.md: the agent's or the fleet's stream). */
  url: string;
  /** Asked when the server refuses the stream: a 401 means the session is gone. */
  probeUrl: string;
  /** Each event's handler, with its parsed data; any message (a ping too) counts as heard. */
  on: Record<string, (data: unknown) => void>;
  setLive: Dispatch<SetStateAction<LiveState>>;
  /** A message arrived after the page was stale: reload what may have been missed. */
  onReconnect?: () => void;
}

/**
 * Follows a dashboard stream (the agent's page and the fleet's alike): stale and said so when
 * it goes quiet, reopened when the server refused it, sign-in again on a lost session. Returns
 * the function that stops following.
 */
export function watchStream(o: StreamWatch): () => void {
  let stopped = false;
  let source: EventSource | null = null;
  let reopen: ReturnType<typeof setTimeout> | undefined;
  let lastMessage = Date.now();
  let stale = false;

  const markStale = () => {
    if (stale) return;
    stale = true;
    o.setLive((l) => ({ ...l, staleSince: l.updatedAt ?? Date.now() }));
  };
  const heard = () => {
    lastMessage = Date.now();
    if (!stale) {
      o.setLive((l) => ({ ...l, updatedAt: lastMessage }));
      return;
    }
    stale = false;
    o.setLive((l) => ({ updatedAt: lastMessage, staleSince: null, reconnects: l.reconnects + 1 }));
    o.onReconnect?.();
  };
  const open = () => {
    if (stopped) return;
    source = new EventSource(o.url);
    for (const [event, handle] of Object.entries(o.on))
      source.addEventListener(event, (e) => {
        heard();
        handle(JSON.parse((e as MessageEvent).data));
      });
    source.onerror = () => {
      markStale();
      if (source?.readyState !== EventSource.CLOSED) return; // the browser retries itself
      source = null;
      // Refused outright: a lost session answers 401 (then sign in again), else try later.
      void api(o.probeUrl).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 401) window.location.assign("/login");
      });
      reopen = setTimeout(open, REOPEN_MS);
    };
  };
  const watchdog = setInterval(() => {
    if (Date.now() - lastMessage > SILENT_MS) markStale();
  }, 1_000);
  open();
  return () => {
    stopped = true;
    clearInterval(watchdog);
    clearTimeout(reopen);
    source?.close();
  };
}
