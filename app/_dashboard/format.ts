/**
 * Pure formatting for the dashboard: no React, no clock, no I/O. Time is passed in (and the
 * time zone, so tests do not depend on the machine's).
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const TRANSITIONAL_STATUSES: ReadonlySet<string> = new Set([
  "creating",
  "starting",
  "snapshotting",
  "stopping",
]);

/** Statuses that describe an ongoing activity ("running for …") rather than a resting state. */
const ONGOING: ReadonlySet<string> = new Set([...TRANSITIONAL_STATUSES, "running"]);

/** A duration in the largest sensible units, rounded down: "45 s", "12 min", "2 h 5 min", "3 d 4 h". */
export function formatDuration(ms: number): string {
  const t = Math.max(0, ms);
  if (t < MINUTE) return `${Math.floor(t / SECOND)} s`;
  if (t < HOUR) return `${Math.floor(t / MINUTE)} min`;
  if (t < DAY) {
    const h = Math.floor(t / HOUR);
    const m = Math.floor((t % HOUR) / MINUTE);
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  const d = Math.floor(t / DAY);
  const h = Math.floor((t % DAY) / HOUR);
  return h ? `${d} d ${h} h` : `${d} d`;
}

/** Short machine timings (wake phases): "0 ms", "850 ms", "1.3 s", "12 s". */
export function formatMs(ms: number): string {
  if (ms < SECOND) return `${Math.round(ms)} ms`;
  if (ms < 10 * SECOND) return `${(ms / SECOND).toFixed(1)} s`;
  return formatDuration(ms);
}

/** "09:14" today; "3 Mar 09:14" on another day (24-hour clock, the operator's zone). */
export function formatClock(at: number, now: number, timeZone?: string): string {
  const time = new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone,
  }).format(at);
  if (dayKey(at, timeZone) === dayKey(now, timeZone)) return time;
  const date = new Intl.DateTimeFormat("en-GB", {
    day: "numeric",
    month: "short",
    timeZone,
  }).format(at);
  return `${date} ${time}`;
}

/** Full timestamp for tooltips and event rows: "3 Mar 2025, 09:14:05". */
export function formatTimestamp(at: number, timeZone?: string): string {
  return new Intl.DateTimeFormat("en-GB", {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
    timeZone,
  }).format(at);
}

function dayKey(at: number, timeZone?: string): string {
  return new Intl.DateTimeFormat("en-CA", { dateStyle: "short", timeZone }).format(at);
}

/** "just now", "5 s ago", "12 min ago"; future times read "in 5 min". */
export function formatAge(at: number, now: number): string {
  const diff = now - at;
  if (Math.abs(diff) < SECOND) return "just now";
  return diff > 0 ? `${formatDuration(diff)} ago` : `in ${formatDuration(-diff)}`;
}

/**
 * The status with its age: ongoing states say how long ("running for 12 min"), resting
 * states say since when ("sleeping since 09:14").
 */
export function formatStatusAge(
  status: string,
  since: number,
  now: number,
  timeZone?: string,
): string {
  if (status === "uninitialized") return "never started";
  if (ONGOING.has(status)) return `${status} for ${formatDuration(now - since)}`;
  return `${status} since ${formatClock(since, now, timeZone)}`;
}

/** Binary units, one decimal below 10: "512 B", "1.5 KiB", "12 MiB". */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = unit === 0 || value >= 10 ? Math.round(value).toString() : value.toFixed(1);
  return `${shown} ${units[unit]}`;
}

/** 0..1 → "7%"; tiny non-zero shares read "<1%" so a saving is never shown as "0% awake" wrongly. */
export function formatPercent(share: number): string {
  if (share > 0 && share < 0.01) return "<1%";
  if (share < 1 && share > 0.99) return ">99%";
  return `${Math.round(share * 100)}%`;
}

const EXTEND_REASONS: Record<string, string> = {
  grace: "the grace period after start",
  delivery: "a message being answered",
  "file-activity": "recent file activity",
  cron: "a cron job due soon",
};

export function describeExtendReason(reason: string): string {
  return EXTEND_REASONS[reason] ?? reason;
}

/** Rounded up, so "~1 min" never promises more time than there is. */
function approxMinutes(ms: number): string {
  return ms <= 0 ? "now" : `~${Math.ceil(ms / MINUTE)} min`;
}

/**
 * Why the agent is still awake and when it will sleep if nothing changes, from the server's
 * forecast (null while not running).
 */
export function formatSleepOutlook(
  forecast: { reason: string | null; activeUntil: number } | null,
  now: number,
): string | null {
  if (!forecast) return null;
  const left = forecast.activeUntil - now;
  if (!forecast.reason) return "Idle: will sleep at the next heartbeat";
  const when = left > 0 ? `in ${approxMinutes(left)}` : "soon";
  return `Kept awake by ${describeExtendReason(forecast.reason)}; will sleep ${when} if nothing changes`;
}

/**
 * What to expect while no sleep forecast is known (the sleep outlook's counterpart): resting,
 * passing between states, or awake before the first heartbeat. Never "Not running" for a
 * status that is running.
 */
export function formatRestingOutlook(status: string, stateGone = false): string {
  if (status === "failed" && stateGone)
    return "Not running: its saved state is gone. Start fresh begins an empty agent; queued messages are kept for it.";
  switch (status) {
    case "running":
      return "Awake: when it sleeps is known after its first heartbeat.";
    case "creating":
    case "starting":
      return `Waking (${status}).`;
    case "snapshotting":
    case "stopping":
      return `Going to sleep (${status}).`;
    case "sleeping":
      return "Asleep: nothing runs and nothing is billed; a message or cron job wakes it.";
    case "uninitialized":
      return "Never started: press Start, or a message starts it.";
    case "failed":
      return "Not running: the last start failed (see the error above). Wake retries it.";
    default:
      return `Not running (${status}).`;
  }
}

/** Remaining native TTL as a fraction of the bar's scale, clamped to 0..1. */
export function runwayShare(remainingMs: number, scaleMs: number): number {
  if (scaleMs <= 0) return 0;
  return Math.min(1, Math.max(0, remainingMs / scaleMs));
}

const PHASES: Record<string, string> = {
  lockMs: "lock",
  createMs: "create",
  provisionMs: "provision",
  sidecarStartMs: "sidecar start",
  healthyMs: "healthy",
  snapshotMs: "snapshot",
  stopMs: "stop",
  totalMs: "total",
};

export interface Phase {
  key: string;
  label: string;
  ms: number;
}

/**
 * Numeric phase timings from an event's details (e.g. status.running's wake timings), in
 * the order they happen; the total last. Anything that is not a timing is ignored.
 */
export function phaseTimings(details: Record<string, unknown>): Phase[] {
  const raw = details.timings;
  if (!raw || typeof raw !== "object") return [];
  const entries = Object.entries(raw as Record<string, unknown>).filter(
    (e): e is [string, number] => typeof e[1] === "number" && Number.isFinite(e[1]),
  );
  const order = Object.keys(PHASES);
  const rank = (k: string) => (order.includes(k) ? order.indexOf(k) : order.length - 1.5);
  return entries
    .sort((a, b) => rank(a[0]) - rank(b[0]))
    .map(([key, ms]) => ({ key, label: PHASES[key] ?? key.replace(/Ms$/, ""), ms }));
}

export interface RestartPoint {
  at: number;
  restarts: number;
  sandboxId: string | null;
}

/** Daemon restarts, oldest first, from `daemon.restarted` events (any order). */
export function restartHistory(
  events: readonly {
    at: number;
    type: string;
    sandboxId: string | null;
    details: Record<string, unknown>;
  }[],
): RestartPoint[] {
  return events
    .filter((e) => e.type === "daemon.restarted")
    .map((e) => ({
      at: e.at,
      restarts: typeof e.details.restarts === "number" ? e.details.restarts : 1,
      sandboxId: e.sandboxId,
    }))
    .sort((a, b) => a.at - b.at);
}

export interface ChartMark {
  x: number;
  y: number;
  point: RestartPoint;
}

/** The restart chart's window: its summary says "in the last 24 h", so its axis spans that. */
export const RESTART_WINDOW_MS = 24 * HOUR;

/**
 * Places restart points on a width × height chart: time on x over exactly the last 24 h
 * (the window the caption names; older points are left out), restart count on y from 0 at
 * the bottom to the highest count at the top.
 */
export function restartChart(
  points: readonly RestartPoint[],
  now: number,
  width: number,
  height: number,
): { from: number; to: number; maxRestarts: number; marks: ChartMark[] } {
  const from = now - RESTART_WINDOW_MS;
  const span = RESTART_WINDOW_MS;
  // A restart stamped by the server a moment ahead of this page's clock is drawn at "now",
  // not dropped: the summary beside the chart already counts it.
  const shown = points.filter((p) => p.at >= from);
  const maxRestarts = Math.max(1, ...shown.map((p) => p.restarts));
  const marks = shown.map((point) => ({
    x: ((Math.min(point.at, now) - from) / span) * width,
    y: height - (point.restarts / maxRestarts) * height,
    point,
  }));
  return { from, to: now, maxRestarts, marks };
}

/**
 * The top line's "Recent:" trail. A status entered at no known time (the never-started state
 * has since = 0) shows without a clock rather than as 00:00:00.
 */
export function formatTrail(
  trail: readonly { status: string; at: number }[],
  clock: (at: number) => string,
): string {
  if (trail.length <= 1) return "";
  return `Recent: ${trail.map((t) => (t.at > 0 ? `${t.status} ${clock(t.at)}` : t.status)).join(" → ")}`;
}

/** "3 restarts" / "1 restart". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** Server reasons are lower-case fragments ("operator: start"); shown as sentences. */
export function asSentence(text: string): string {
  const t = text.trim();
  if (!t) return t;
  const s = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}
