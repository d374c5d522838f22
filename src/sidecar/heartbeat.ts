import { type HeartbeatBody, parseHeartbeatResponse } from "../protocol/heartbeat";
import { signatureHeaders } from "../protocol/signing";
import type { Logger } from "./log-file";
import { postJson } from "./post-json";

export interface HeartbeatOptions {
  /** `<parentUrl>/api/heartbeat`. */
  url: string;
  secret: string;
  /** Sent with every heartbeat (Deployment Protection's bypass header). */
  extraHeaders?: Record<string, string>;
  intervalMs: number;
  timeoutMs: number;
  /** Builds the body at send time, so a coalesced send carries the latest state. */
  body: () => HeartbeatBody;
  /** Called with the body of each heartbeat the parent accepted (2xx). */
  onAccepted?: (body: HeartbeatBody) => void;
  log: Logger;
  now?: () => number;
}

export interface HeartbeatState {
  /** Epoch ms of the last attempt; null before the first. */
  lastTick: number | null;
  /** Whether the last attempt got a 2xx; null before the first. */
  lastSuccess: boolean | null;
}

/** `<parentUrl>/api/heartbeat`, tolerating a trailing slash or a path prefix on the base. */
export function heartbeatUrl(parentUrl: string): string {
  return new URL("api/heartbeat", parentUrl.endsWith("/") ? parentUrl : `${parentUrl}/`).href;
}

/**
 * Signed heartbeats (docs/sidecar.md, "Heartbeat"): one at start, one every intervalMs, one at once when
 * `trigger()` is called (daemon status changes). At most one request is in flight; a
 * trigger during a send queues exactly one more. Failures are recorded and logged, and the
 * next tick is the retry; nothing here throws.
 */
export class Heartbeat {
  private readonly current: HeartbeatState = { lastTick: null, lastSuccess: null };
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly opts: HeartbeatOptions) {
    this.now = opts.now ?? Date.now;
  }

  get state(): HeartbeatState {
    return { ...this.current };
  }

  /** The immediate first tick, then the interval. */
  start(): Promise<void> {
    this.timer = setInterval(() => void this.trigger(), this.opts.intervalMs);
    return this.trigger();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Sends now, or right after the send in progress; resolves when that send is done. */
  trigger(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = (async () => {
      do {
        this.again = false;
        await this.send();
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async send(): Promise<void> {
    const { url, secret, timeoutMs, log } = this.opts;
    const body = this.opts.body();
    const raw = JSON.stringify(body);
    const at = this.now();
    this.current.lastTick = at;
    const wasOk = this.current.lastSuccess;
    try {
      const res = await postJson(
        url,
        raw,
        { ...this.opts.extraHeaders, ...signatureHeaders(secret, raw, at) },
        timeoutMs,
      );
      const text = res.text;
      if (res.status < 200 || res.status >= 300) {
        this.current.lastSuccess = false;
        log.warn(`heartbeat rejected: HTTP ${res.status} ${text.slice(0, 300)}`);
        return;
      }
      this.current.lastSuccess = true;
      this.opts.onAccepted?.(body);
      // Quiet when healthy: one line on the first success and on each recovery.
      if (wasOk !== true) log.info(`heartbeat ok (${raw})`);
      const parsed = safeJson(text);
      const answer = parseHeartbeatResponse(parsed);
      if (answer.ok && answer.value.action === "stop") {
        log.info(`parent answered stop (${answer.value.reason}): expecting shutdown`);
      }
    } catch (err) {
      this.current.lastSuccess = false;
      log.warn(`heartbeat failed: ${describeFetchError(err, timeoutMs)}`);
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describeFetchError(err: unknown, timeoutMs: number): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.name === "TimeoutError") return `no answer within ${timeoutMs} ms`;
  return e?.code ? `${e.message} (${e.code})` : String(e?.message ?? err);
}
