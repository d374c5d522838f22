import { readdirSync, readFileSync } from "node:fs";

/**
 * Finding the processes to kill at shutdown. The daemon is spawned in the sidecar's own
 * process group (so the sandbox can kill the whole group), which means the sidecar cannot
 * signal "the daemon's group" without hitting itself; instead it reads /proc to find the
 * daemon's descendants and any other member of its group (orphans of earlier daemon
 * crashes). Each process is remembered with its start time so a recycled pid is never hit.
 */

export interface ProcEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  /** Start time in clock ticks since boot: with the pid, a unique identity. */
  start: string;
  zombie: boolean;
}

function parseStat(text: string): ProcEntry | null {
  // comm (field 2) may contain spaces and parentheses: parse after the last ')'.
  const close = text.lastIndexOf(")");
  if (close === -1) return null;
  const pid = Number(text.slice(0, text.indexOf(" ")));
  const f = text.slice(close + 2).split(" ");
  // After comm: state(3) ppid(4) pgrp(5) ... starttime(22) → indexes 0, 1, 2, 19.
  if (f.length < 20 || !Number.isInteger(pid)) return null;
  return {
    pid,
    ppid: Number(f[1]),
    pgrp: Number(f[2]),
    start: f[19] ?? "",
    zombie: f[0] === "Z" || f[0] === "X",
  };
}

export function readProc(pid: number): ProcEntry | null {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null;
  }
}

/** Every process visible in /proc, or null where there is no procfs (not Linux). */
export function readProcTable(): ProcEntry[] | null {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return null;
  }
  const table: ProcEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readProc(Number(name));
    if (entry) table.push(entry);
  }
  return table;
}

/** Every descendant of `rootPid` (children, grandchildren, ...), not the root itself. */
export function descendantsOf(rootPid: number, table: ProcEntry[]): ProcEntry[] {
  const byParent = new Map<number, ProcEntry[]>();
  for (const p of table) {
    const list = byParent.get(p.ppid) ?? [];
    list.push(p);
    byParent.set(p.ppid, list);
  }
  const found = new Map<number, ProcEntry>();
  const queue = [rootPid];
  while (queue.length > 0) {
    const parent = queue.pop() as number;
    for (const child of byParent.get(parent) ?? []) {
      if (found.has(child.pid) || child.pid === rootPid) continue;
      found.set(child.pid, child);
      queue.push(child.pid);
    }
  }
  return [...found.values()];
}

/**
 * What the sidecar must not leave behind: its descendants (daemon, tool installs) plus,
 * when it leads its process group, every other member of that group (orphans of an
 * earlier daemon crash that were reparented away from it).
 */
export function ownedBy(selfPid: number, table: ProcEntry[]): ProcEntry[] {
  const owned = new Map(descendantsOf(selfPid, table).map((p) => [p.pid, p]));
  const self = table.find((p) => p.pid === selfPid);
  // Only a group leader may sweep its group: otherwise the group is someone else's (a shell's).
  if (self && self.pgrp === selfPid) {
    for (const p of table) if (p.pgrp === selfPid && p.pid !== selfPid) owned.set(p.pid, p);
  }
  return [...owned.values()];
}

/** True while the same process (pid + start time) exists and is not a zombie. */
export function isAlive(entry: Pick<ProcEntry, "pid" | "start">): boolean {
  const now = readProc(entry.pid);
  return now !== null && now.start === entry.start && !now.zombie;
}

/** Signals the still-alive tracked processes; returns how many were signalled. */
export function signalAlive(entries: Iterable<ProcEntry>, signal: NodeJS.Signals): number {
  let count = 0;
  for (const entry of entries) {
    if (!isAlive(entry)) continue;
    try {
      process.kill(entry.pid, signal);
      count++;
    } catch {
      // exited between the check and the signal
    }
  }
  return count;
}

export function countAlive(entries: Iterable<ProcEntry>): number {
  let count = 0;
  for (const entry of entries) if (isAlive(entry)) count++;
  return count;
}
