import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { conversationFileName } from "../../src/agent-echo/conversation-log";
import type { SandboxLifecycleManager } from "../../src/server/sandbox/manager";
import type { LifecycleHarness } from "./lifecycle-harness";

/**
 * The three checks every fault scenario ends with (issue 18): every acknowledged message was
 * delivered exactly once and in order per conversation; the state is legal within one tick;
 * no sandbox process outlives the sandbox it belongs to.
 */

/** Messages acknowledged to the platform, per conversation, in the order they were sent. */
export class Acknowledged {
  readonly byConversation = new Map<string, string[]>();
  add(conversation: string, id: string): void {
    const list = this.byConversation.get(conversation) ?? [];
    list.push(id);
    this.byConversation.set(conversation, list);
  }
  get count(): number {
    return [...this.byConversation.values()].reduce((n, l) => n + l.length, 0);
  }
}

const TRANSITIONAL = new Set(["creating", "starting", "snapshotting", "stopping"]);

/**
 * Once the work already under way has finished, one tick brings the state to rest and in line
 * with the provider's truth (docs/lifecycle.md: a restarted server repairs and wakes in the
 * same tick). `manager` is the one to tick with, e.g. a restarted server's.
 */
export async function expectLegalWithinOneTick(
  h: LifecycleHarness,
  manager: SandboxLifecycleManager = h.manager,
): Promise<void> {
  await h.settled();
  const report = await manager.tick();
  expect(report.ran, "the tick got the lifecycle lock").toBe(true);
  const state = await h.status();
  expect(TRANSITIONAL.has(state.status), `status after one tick: ${state.status}`).toBe(false);
  const running = (await h.provider.list()).filter((s) => s.status === "running");
  if (state.status === "running") expect(running.map((s) => s.id)).toEqual([state.sandboxId]);
  else expect(running.map((s) => s.id)).toEqual([]);
}

/**
 * Wakes the agent if it sleeps (its files are its memory) and compares each conversation's
 * file — the echo agent appends every message once, by id — with what was acknowledged:
 * the same ids, each once, in the same order. The inbox holds nothing pending or dead.
 */
export async function expectDeliveredOnceInOrder(
  h: LifecycleHarness,
  sent: Acknowledged,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await h.store.inbox.count();
    if (counts.pending === 0) break;
    if (Date.now() > deadline)
      throw new Error(`still ${counts.pending} message(s) pending after ${timeoutMs} ms`);
    await h.manager.wakeAndDeliver({ reason: "fault check", trigger: "message" });
    await new Promise((r) => setTimeout(r, 200));
  }
  expect((await h.store.inbox.count()).dead, "dead letters").toBe(0);
  const state = await h.status();
  if (state.status !== "running")
    await h.manager.wake({ reason: "fault check: read the agent's files", trigger: "operator" });
  const sandboxId = (await h.status()).sandboxId as string;
  const root = (await h.provider.get(sandboxId)).root;
  for (const [conversation, ids] of sent.byConversation) {
    const file = join(root, "conversations", `${conversationFileName(conversation)}.jsonl`);
    const delivered = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => String((JSON.parse(line) as { id: string }).id));
    expect(delivered, `conversation ${conversation}`).toEqual(ids);
  }
}

/**
 * Live processes per sandbox id of this state dir: those whose command line names a sandbox
 * directory or whose working directory is inside one (a daemon started as `node -e …`).
 */
export function sandboxProcesses(h: LifecycleHarness): Map<string, string[]> {
  const sandboxes = join(h.stateDir, "sandboxes");
  const pattern = new RegExp(`${escapeRegExp(sandboxes)}/([^/ ]+)`);
  const found = new Map<string, string[]>();
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    let cmdline: string;
    let cwd: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      continue; // exited meanwhile
    }
    const id = (pattern.exec(cmdline) ?? pattern.exec(cwd))?.[1];
    if (id) found.set(id, [...(found.get(id) ?? []), `${pid}: ${cmdline.slice(0, 120)}`]);
  }
  return found;
}

/** No process of a sandbox other than the current running one is alive. */
export async function expectNoOrphans(h: LifecycleHarness): Promise<void> {
  const state = await h.status();
  const current = state.status === "running" ? state.sandboxId : null;
  const orphans = [...sandboxProcesses(h)].filter(([id]) => id !== current);
  expect(orphans, "processes of sandboxes that are not the current one").toEqual([]);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** All three, in the order a repaired system would pass them. */
export async function expectRecovered(
  h: LifecycleHarness,
  sent: Acknowledged,
  manager: SandboxLifecycleManager = h.manager,
): Promise<void> {
  await expectLegalWithinOneTick(h, manager);
  await expectDeliveredOnceInOrder(h, sent);
  await expectLegalWithinOneTick(h);
  await expectNoOrphans(h);
}
