import type {
  ConfigRowView,
  EventView,
  InboxItemView,
  InboxView,
  OverviewView,
  SnapshotView,
} from "./api-schemas";

/** Human output of the CLI, as pure functions of the API's answers and the time. */

export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** hh:mm:ss (local time) for today's times; the date too for older ones. */
export function clock(at: number, now: number): string {
  const d = new Date(at);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return new Date(now).toDateString() === d.toDateString()
    ? time
    : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`;
}

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return "?";
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

/** The status in a few aligned lines, the first answering "is it awake, and until when?". */
export function formatStatus(o: OverviewView): string[] {
  const i = o.instance;
  const now = o.now;
  const since = i.since ? ` since ${clock(i.since, now)} (${duration(now - i.since)})` : "";
  const rows: [string, string][] = [[i.status, headline(o, since)]];
  rows.push(["instance", `${i.name} · ${i.provider} sandbox · ${agentLabel(o)}`]);
  if (i.reason) rows.push(["reason", i.reason]);
  if (i.error) rows.push(["error", i.error]);
  if (i.lost)
    rows.push([
      "LOST",
      i.lost.snapshotId
        ? `snapshot ${i.lost.snapshotId} was found missing at ${clock(i.lost.at, now)}`
        : `the agent's state was lost at ${clock(i.lost.at, now)}`,
    ]);
  if (i.sandboxId) rows.push(["sandbox", i.sandboxId]);
  if (i.snapshotId) rows.push(["snapshot", i.snapshotId]);
  if (o.heartbeat && i.sandboxId) {
    const h = o.heartbeat;
    rows.push([
      "heartbeat",
      `${duration(now - h.receivedAt)} ago · daemon ${h.daemonStatus}, ${h.daemonRestarts} restarts`,
    ]);
  }
  rows.push(["inbox", `${o.inbox.pending} pending, ${o.inbox.dead} dead letters`]);
  if (o.cron?.nextDueAt) {
    rows.push(["cron", `${o.cron.nextJob ?? "next job"} at ${clock(o.cron.nextDueAt, now)}`]);
  }
  if (o.awake) {
    const m = o.awake.month;
    rows.push([
      "awake",
      `${duration(m.awakeMs)} in the last ${duration(m.windowMs)} (${(m.awakeShare * 100).toFixed(1)}%)`,
    ]);
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
}

function headline(o: OverviewView, since: string): string {
  const i = o.instance;
  switch (i.status) {
    case "running":
      if (o.forecast?.reason === "delivery") return `awake${since} · answering a message`;
      return o.forecast
        ? `awake${since} · sleeps in ~${duration(o.forecast.activeUntil - o.now)}${o.forecast.reason ? ` (kept by ${o.forecast.reason})` : ""}`
        : `awake${since}`;
    case "sleeping":
      return `asleep${since} · wakes on the next message`;
    case "uninitialized":
      return "never started · wakes on the first message (or clawrun wake)";
    case "failed":
      // Saved state gone: nothing retries it and a plain wake cannot help; say the one way on.
      if (i.lost) {
        const what = i.lost.snapshotId ? "snapshot missing" : "state lost";
        const kept = o.inbox.pending > 0 ? ` (${o.inbox.pending} queued kept for it)` : "";
        return `— ${what}${since} · clawrun wake --fresh starts an empty agent${kept}`;
      }
      return o.nextRetryAt
        ? `failed${since} · retries at ${clock(o.nextRetryAt, o.now)} (or clawrun wake)`
        : `failed${since} · clawrun wake tries again`;
    default:
      return `in transition${since}`;
  }
}

function agentLabel(o: OverviewView): string {
  const a = o.agent;
  if (!a) return `${o.instance.agent} agent`;
  return [`${a.type} agent`, a.version, a.model].filter(Boolean).join(" · ");
}

export function formatEvent(e: EventView, now: number): string {
  const level = e.level === "info" ? "" : ` ${e.level.toUpperCase()}`;
  return `${clock(e.at, now)}${level} ${e.type}: ${e.message}`;
}

export function formatSnapshots(list: SnapshotView[], now: number): string[] {
  if (list.length === 0) return ["no snapshots yet"];
  return list.map(
    (s) =>
      `${s.id}  ${clock(s.createdAt, now)} (${duration(now - s.createdAt)} ago)  ${bytes(s.sizeBytes)}${s.sourceSandboxId ? `  from ${s.sourceSandboxId}` : ""}`,
  );
}

export function formatInbox(inbox: InboxView, now: number): string[] {
  const r = inbox.replies;
  const lines = [
    `inbox: ${inbox.counts.pending} pending, ${inbox.counts.dead} dead letters · replies: ${r.counts.pending} pending, ${r.counts.dead} dead letters`,
  ];
  const item = (kind: string, m: InboxItemView) => {
    const text = m.text.length > 60 ? `${m.text.slice(0, 59)}…` : m.text;
    const error = m.lastError ? ` · last error: ${m.lastError}` : "";
    lines.push(
      `${kind.padEnd(13)} ${m.id}  ${m.channel}/${m.conversation}  ${clock(m.receivedAt, now)}  ${m.attempts} attempts  ${JSON.stringify(text)}${error}`,
    );
  };
  for (const m of inbox.pending) item("pending", m);
  for (const m of inbox.dead) item("dead", m);
  for (const m of r.pending) item("reply pending", m);
  for (const m of r.dead) item("reply dead", m);
  return lines;
}

export function formatConfigRows(rows: ConfigRowView[]): string[] {
  const width = Math.max(0, ...rows.map((r) => r.key.length));
  return rows.map((r) => `${r.key.padEnd(width)}  ${r.value}  (${r.source})`);
}
