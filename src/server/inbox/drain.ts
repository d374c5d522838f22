import {
  type Agent,
  AgentUnreachableError,
  type DaemonTransport,
  type DeliveryResult,
} from "../agents/types";
import { withDeliveryId } from "../agents/with-delivery-id";
import type { InboxMessage } from "../domain/inbox-message";
import { replyId } from "../domain/outbox-ids";
import { sidecarClient } from "../door/sidecar-client";
import { retryDelayMs } from "./backoff";
import type { DrainDeps } from "./inbox-deps";
import { messageEvent } from "./inbox-events";
import { waitForDue } from "./wait-for-due";

/** How long a claimed message stays invisible to other deliverers (the timings' claimMarginMs). */
export function deliveryVisibilityMs(
  agent: Pick<Agent, "deliveryTimeoutMs">,
  timings: Pick<DrainDeps["timings"], "claimMarginMs">,
): number {
  return agent.deliveryTimeoutMs + timings.claimMarginMs;
}
const BATCH = 10;

interface DeliveryTarget {
  door: DaemonTransport;
  sandboxId: string;
}

export type { DrainDeps };

export interface DrainOptions {
  /** The webhook waiting for this message's reply (it answers 200 with it; no reply POST). */
  inlineId?: string;
  /** Keep going through retry back-offs for up to this long (0: one pass). */
  waitForRetriesMs?: number;
}

export interface DrainResult {
  delivered: number;
  retried: number;
  dead: number;
  inline: { ok: true; result: DeliveryResult } | { ok: false; error: string } | null;
  /** Why draining stopped early (e.g. the instance is not running). */
  halted: string | null;
  /**
   * Nothing answered at the agent's address: the messages were given back without counting an
   * attempt, and the caller must check whether the agent is still alive.
   */
  unreachable: boolean;
  /**
   * Delivered (the agent answered) but the reply or the acknowledgement could not be stored:
   * finish them with `settleDelivered` once the store answers again.
   */
  unsettled: Unsettled[];
}

/** A delivery the agent answered whose reply/acknowledgement the store did not take. */
export interface Unsettled {
  msg: InboxMessage;
  result: DeliveryResult;
  error: string;
}

/**
 * Delivers the inbox to the running daemon in arrival order. A message is claimed BEFORE the
 * status is checked, and snapshotting waits for claims to end: so no message reaches a daemon
 * whose state is being captured. A failure blocks the rest of its conversation for this pass.
 */
export async function drainInbox(d: DrainDeps, opts: DrainOptions = {}): Promise<DrainResult> {
  const r: DrainResult = {
    delivered: 0,
    retried: 0,
    dead: 0,
    inline: null,
    halted: null,
    unreachable: false,
    unsettled: [],
  };
  const deadline = d.clock() + (opts.waitForRetriesMs ?? 0);
  const visibilityMs = deliveryVisibilityMs(d.agent, d.timings);
  let target: DeliveryTarget | null = null;

  for (;;) {
    const batch = await d.store.inbox.claim(d.clock(), visibilityMs, BATCH);
    if (batch.length === 0) {
      if (r.inline || !(await waitForDue(d.store.inbox, d.clock, deadline))) break;
      continue;
    }
    const state = (await d.store.state.get())?.value;
    if (state?.status !== "running" || !state.sandboxId) {
      await Promise.all(batch.map((m) => d.store.inbox.release(m.id)));
      r.halted = `instance is ${state?.status ?? "uninitialized"}`;
      break;
    }
    // Deliveries go through the sidecar's signed door, never to the daemon's port.
    target ??= {
      door: sidecarClient(await d.provider.get(state.sandboxId), d.masterSecret),
      sandboxId: state.sandboxId,
    };
    const blocked = new Set<string>();
    for (const msg of batch) {
      if (blocked.has(msg.conversation) || r.unreachable || r.unsettled.length > 0) {
        // A release the store refuses only means the claim runs out by itself.
        await d.store.inbox.release(msg.id).catch(() => false);
        continue;
      }
      const ok = await deliverOne(d, target, msg, opts, r);
      if (!ok) blocked.add(msg.conversation);
    }
    if (r.unreachable) {
      r.halted = "the agent is unreachable";
      break;
    }
    if (r.unsettled.length > 0) {
      r.halted = `the store failed after a delivery: ${r.unsettled[0]?.error}`;
      break;
    }
    if (opts.inlineId && r.inline && !opts.waitForRetriesMs) break;
  }
  return r;
}

async function deliverOne(
  d: DrainDeps,
  target: DeliveryTarget,
  msg: InboxMessage,
  opts: DrainOptions,
  r: DrainResult,
): Promise<boolean> {
  const isInline = msg.id === opts.inlineId;
  let result: DeliveryResult;
  // The model gateway counts calls made meanwhile for this conversation. Only bookkeeping:
  // a store that refuses the mark must not hold the message back.
  const now = d.clock();
  const { id, channel, conversation, meta } = msg;
  const mark = { id, channel, conversation, meta, until: now + d.agent.deliveryTimeoutMs };
  await d.store.deliveries.open(mark, now).catch(() => {});
  try {
    result = await d.agent.deliver(
      withDeliveryId(target.door, msg.id),
      { id: msg.id, conversation: msg.conversation, text: msg.text },
      AbortSignal.timeout(d.agent.deliveryTimeoutMs),
    );
  } catch (err) {
    await d.store.deliveries.close(msg.id).catch(() => {});
    await deliveryFailed(d, target, msg, isInline, err, r);
    return false;
  }
  await d.store.deliveries.close(msg.id).catch(() => {});
  // The agent has the message: a store fault from here on must not count as a failed
  // delivery. What could not be recorded is handed back (settle.ts finishes it).
  try {
    // The reply is queued before the message is acknowledged: a crash in between redelivers
    // (agents are told the id to be idempotent) and the reply's id dedupes the second reply.
    // An empty answer (e.g. an agent's "already handled" for a redelivery) has nothing to send.
    if (!isInline && result.reply.trim() !== "") await queueReply(d, msg, result);
    await d.store.inbox.ack(msg.id);
  } catch (err) {
    r.unsettled.push({ msg, result, error: err instanceof Error ? err.message : String(err) });
    if (isInline) r.inline = { ok: false, error: "delivered, but the store failed to record it" };
    return false;
  }
  r.delivered++;
  if (isInline) r.inline = { ok: true, result };
  await messageEvent(d, target.sandboxId, msg, "message.delivered", "info", `delivered ${msg.id}`);
  return true;
}

async function deliveryFailed(
  d: DrainDeps,
  target: DeliveryTarget,
  msg: InboxMessage,
  isInline: boolean,
  err: unknown,
  r: DrainResult,
): Promise<void> {
  if (err instanceof AgentUnreachableError) {
    await d.store.inbox.release(msg.id);
    r.unreachable = true;
    return;
  }
  const error = err instanceof Error ? err.message : String(err);
  const attempts = msg.attempts + 1;
  const outcome = await d.store.inbox.fail(msg.id, error, {
    maxAttempts: d.timings.deliveryMaxAttempts,
    retryAt: d.clock() + retryDelayMs(attempts, d.timings.deliveryRetryBaseMs),
  });
  if (outcome === "dead") {
    r.dead++;
    if (isInline) r.inline = { ok: false, error };
    await messageEvent(
      d,
      target.sandboxId,
      msg,
      "inbox.dead-letter",
      "error",
      `message ${msg.id} moved to the dead-letter list after ${attempts} failed deliveries: ${error}`,
    );
  } else if (outcome === "retry") {
    r.retried++;
    await messageEvent(
      d,
      target.sandboxId,
      msg,
      "delivery.retry",
      "warn",
      `delivery ${attempts} of message ${msg.id} failed (${error}); will retry`,
    );
  }
}

export async function queueReply(
  d: Pick<DrainDeps, "store" | "clock">,
  msg: InboxMessage,
  result: DeliveryResult,
): Promise<void> {
  await d.store.outbox.enqueue({
    id: replyId(msg.id),
    channel: msg.channel,
    conversation: msg.conversation,
    text: result.reply,
    receivedAt: d.clock(),
    // The channel's own meta, untouched: channels validate it strictly.
    meta: msg.meta,
  });
}
