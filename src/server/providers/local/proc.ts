import { readdirSync, readFileSync } from "node:fs";

/** What ClawRun needs from /proc/<pid>/stat (Linux). */
export interface ProcStat {
  pid: number;
  /** R, S, D, T (stopped), t, Z (zombie), X (dead), … */
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  /** Clock ticks since boot: with the pid, identifies one process across PID reuse. */
  startTime: number;
}

/** Pure. `comm` (field 2) may hold spaces and parentheses, so fields are read after the last ")". */
export function parseStat(text: string): ProcStat | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // rest[0] is field 3 (state), so field N is rest[N - 3].
  const state = rest[0];
  const nums = [rest[1], rest[2], rest[3], rest[19]].map(Number);
  const [ppid, pgrp, session, startTime] = nums as [number, number, number, number];
  if (!state || !Number.isInteger(pid) || nums.some((n) => !Number.isInteger(n))) return null;
  return { pid, state, ppid, pgrp, session, startTime };
}

export function readStat(pid: number): ProcStat | null {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null; // gone (or never existed)
  }
}

/** Every process on the machine (those that exit while we scan are skipped). */
export function listProcesses(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) out.push(stat);
  }
  return out;
}

/** Pure: a zombie has exited and only waits to be reaped. */
export function isLiveState(state: string): boolean {
  return state !== "Z" && state !== "X" && state !== "x";
}

/** Is this exact process (pid + start time) still running? */
export function isSameProcessAlive(identity: { pid: number; startTime: number }): boolean {
  const stat = readStat(identity.pid);
  return stat !== null && stat.startTime === identity.startTime && isLiveState(stat.state);
}

export function selfIdentity(): { pid: number; startTime: number } {
  const stat = readStat(process.pid);
  if (!stat) throw new Error("cannot read /proc/self/stat: the local provider needs Linux /proc");
  return { pid: stat.pid, startTime: stat.startTime };
}

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
