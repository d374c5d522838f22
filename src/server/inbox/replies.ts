import { ChannelSendError } from "../channels/types";
import type { InboxMessage } from "../domain/inbox-message";
import { inReplyTo } from "../domain/outbox-ids";
import { retryDelayMs } from "./backoff";
import type { DrainDeps } from "./inbox-deps";
import { messageEvent } from "./inbox-events";
import { waitForDue } from "./wait-for-due";

/** A reply is invisible to other senders this long while one sends it (a platform may be slow). */
const SEND_VISIBILITY_MS = 60_000;
const SEND_TIMEOUT_MS = 30_000;
const BATCH = 10;

export interface ReplyReport {
  sent: number;
  deferred: number;
  retried: number;
  dead: number;
}

/**
 * Sends queued replies back through their channels, in order per conversation. A platform
 * that asks to slow down (429, retry_after) gets exactly that: the reply waits and keeps its
 * place, never counted as a failure; other failures are retried with backoff, then
 * dead-lettered with an event, like a delivery.
 */
export async function sendReplies(
  d: DrainDeps,
  opts: { waitUntil?: number } = {},
): Promise<ReplyReport> {
  const report: ReplyReport = { sent: 0, deferred: 0, retried: 0, dead: 0 };
  for (;;) {
    const batch = await d.store.outbox.claim(d.clock(), SEND_VISIBILITY_MS, BATCH);
    if (batch.length === 0) {
      if (!(await waitForDue(d.store.outbox, d.clock, opts.waitUntil ?? 0))) break;
      continue;
    }
    const blocked = new Set<string>();
    for (const reply of batch) {
      if (blocked.has(reply.conversation)) {
        await d.store.outbox.release(reply.id);
        continue;
      }
      if (!(await sendOne(d, reply, report))) blocked.add(reply.conversation);
    }
  }
  return report;
}

async function sendOne(d: DrainDeps, reply: InboxMessage, report: ReplyReport): Promise<boolean> {
  const answered = inReplyTo(reply.id);
  const about = { id: answered, channel: reply.channel, conversation: reply.conversation };
  const channel = d.channels.get(reply.channel);
  try {
    const target = { messageId: answered, conversation: reply.conversation, meta: reply.meta };
    const sent = channel
      ? await channel.send(target, reply.text, AbortSignal.timeout(SEND_TIMEOUT_MS))
      : { sent: false, detail: `no channel "${reply.channel}" is configured to send it` };
    await d.store.outbox.ack(reply.id);
    report.sent++;
    await messageEvent(
      d,
      null,
      about,
      "message.replied",
      "info",
      `reply to ${answered}: ${sent.detail}`,
      {
        sent: sent.sent,
        reply: reply.text.slice(0, 500),
      },
    );
    return true;
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    if (err instanceof ChannelSendError && err.retryAfterMs !== null && !err.permanent) {
      await d.store.outbox.defer(reply.id, d.clock() + err.retryAfterMs);
      report.deferred++;
      await messageEvent(
        d,
        null,
        about,
        "reply.deferred",
        "info",
        `the platform asked to wait ${Math.ceil(err.retryAfterMs / 1000)} s before the reply to ${answered}: ${error}`,
      );
      return false;
    }
    const attempts = reply.attempts + 1;
    const permanent = err instanceof ChannelSendError && err.permanent;
    const outcome = await d.store.outbox.fail(reply.id, error, {
      maxAttempts: permanent ? attempts : d.timings.deliveryMaxAttempts,
      retryAt: d.clock() + retryDelayMs(attempts, d.timings.deliveryRetryBaseMs),
    });
    if (outcome === "dead") {
      report.dead++;
      await messageEvent(
        d,
        null,
        about,
        "reply.dead-letter",
        "error",
        `the reply to ${answered} could not be sent after ${attempts} attempt${attempts === 1 ? "" : "s"} and moved to the dead-letter list: ${error}`,
      );
    } else if (outcome === "retry") {
      report.retried++;
      await messageEvent(
        d,
        null,
        about,
        "reply.retry",
        "warn",
        `sending the reply to ${answered} failed (${error}); will retry`,
      );
    }
    return false;
  }
}
