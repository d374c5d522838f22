import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { isLiveState, listProcesses, readStat } from "./proc";
import {
  type ProcessRecord,
  processRecordSchema,
  readJson,
  type SandboxLayout,
  writeJsonAtomic,
} from "./sandbox-meta";

/**
 * Every process the sandbox starts is a session and group leader (spawned with setsid), so
 * signalling -pid reaches it and all its descendants that did not setsid themselves.
 *
 * PID reuse: Linux never hands out a number that is still some group's id, so while any
 * member of our group lives the number is ours. If the leader's pid now belongs to a process
 * with another start time, the number was reused, hence our group is empty: never signal it.
 */

export function recordProcess(layout: SandboxLayout, rec: ProcessRecord): void {
  mkdirSync(layout.procs, { recursive: true });
  writeJsonAtomic(join(layout.procs, `${rec.pid}-${rec.startTime}.json`), rec);
}

export function readProcessRecords(layout: SandboxLayout): ProcessRecord[] {
  let names: string[];
  try {
    names = readdirSync(layout.procs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  return names
    .filter((n) => n.endsWith(".json"))
    .map((n) => readJson(join(layout.procs, n), processRecordSchema))
    .filter((r): r is ProcessRecord => r !== null);
}

/** Forgets groups that have no member left, so the list stays as long as what is running. */
export function pruneProcessRecords(layout: SandboxLayout): void {
  for (const rec of readProcessRecords(layout)) {
    if (!groupAlive(rec))
      rmSync(join(layout.procs, `${rec.pid}-${rec.startTime}.json`), { force: true });
  }
}

/** Does the recorded group still have a live (non-zombie) member? */
export function groupAlive(rec: ProcessRecord): boolean {
  const leader = readStat(rec.pid);
  if (leader && leader.startTime !== rec.startTime) return false; // number reused: ours is gone
  try {
    process.kill(-rec.pid, 0);
  } catch {
    return false; // ESRCH: no member; EPERM: not a group we started
  }
  if (leader && isLiveState(leader.state)) return true;
  // Only a zombie leader or orphaned members remain: look for a member that still runs.
  return listProcesses().some((p) => p.pgrp === rec.pid && isLiveState(p.state));
}

export function signalGroup(rec: ProcessRecord, signal: NodeJS.Signals): boolean {
  const leader = readStat(rec.pid);
  if (leader && leader.startTime !== rec.startTime) return false;
  try {
    process.kill(-rec.pid, signal);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(done: () => boolean, timeoutMs: number, stepMs = 25): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (done()) return true;
    if (Date.now() >= until) return false;
    await sleep(stepMs);
  }
}

/**
 * SIGTERM (plus SIGCONT, so a frozen process can act on it), wait up to `graceMs` for the
 * groups to exit, then SIGKILL what is left. Resolves once nothing is left (or after a
 * bounded wait for the kernel to finish the kills).
 */
export async function terminateGroups(recs: readonly ProcessRecord[], graceMs: number) {
  const live = recs.filter(groupAlive);
  if (live.length === 0) return;
  for (const rec of live) {
    signalGroup(rec, "SIGTERM");
    signalGroup(rec, "SIGCONT");
  }
  const allGone = () => !live.some(groupAlive);
  if (await waitUntil(allGone, graceMs)) return;
  for (const rec of live) signalGroup(rec, "SIGKILL");
  await waitUntil(allGone, 5_000);
}

/**
 * SIGSTOP every group and wait until each member is really stopped: kill() returns before
 * the target has stopped, and a write in progress completes first. Re-sends SIGSTOP each
 * round so a child forked in the meantime is caught too. Throws if something will not stop.
 */
export async function freezeGroups(recs: readonly ProcessRecord[], timeoutMs: number) {
  const live = recs.filter(groupAlive);
  const groups = new Set(live.map((r) => r.pid));
  if (groups.size === 0) return;
  const running = () =>
    listProcesses().filter(
      (p) => groups.has(p.pgrp) && isLiveState(p.state) && p.state !== "T" && p.state !== "t",
    );
  const frozen = await waitUntil(
    () => {
      for (const rec of live) signalGroup(rec, "SIGSTOP");
      return running().length === 0;
    },
    timeoutMs,
    5,
  );
  if (!frozen) {
    const stuck = running().map((p) => `${p.pid}(${p.state})`);
    throw new Error(
      `could not freeze sandbox processes within ${timeoutMs} ms: ${stuck.join(" ")}`,
    );
  }
}

export function thawGroups(recs: readonly ProcessRecord[]): void {
  for (const rec of recs) signalGroup(rec, "SIGCONT");
}
