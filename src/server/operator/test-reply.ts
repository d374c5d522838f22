import type { AppContext } from "../app-context";
import type { LifecycleEvent } from "../domain/events";

/** The ids `sendTestMessage` gives (test-<ms>-<6 hex>): only those can be asked about here. */
export const TEST_MESSAGE_ID = /^test-\d{1,16}-[0-9a-f]{6}$/;

/** How far the dashboard's own test message got, and the agent's reply once it came. */
export interface TestReply {
  id: string;
  state: "waiting" | "delivered" | "replied" | "failed";
  /** The agent's reply text (also when no channel could send it anywhere). */
  reply: string | null;
  detail: string | null;
}

/** Events read back: far more than one wake and delivery append. */
const WINDOW = 200;

/**
 * Pure: the fate of message `id` from the event log (newest first). The reply is read from
 * the delivery record (`message.replied` keeps its text), so it shows even when the generic
 * channel has no replyUrl to post it to.
 */
export function testReplyFrom(events: readonly LifecycleEvent[], id: string): TestReply {
  let state: TestReply = { id, state: "waiting", reply: null, detail: null };
  for (const e of [...events].reverse()) {
    if (e.details.messageId !== id) continue;
    if (e.type === "message.replied") {
      const reply = typeof e.details.reply === "string" ? e.details.reply : "";
      return { id, state: "replied", reply, detail: null };
    }
    if (e.type === "inbox.dead-letter" || e.type === "reply.dead-letter")
      return { id, state: "failed", reply: null, detail: e.message };
    if (e.type === "message.delivered")
      state = { id, state: "delivered", reply: null, detail: null };
  }
  return state;
}

export async function readTestReply(
  ctx: Pick<AppContext, "store">,
  id: string,
): Promise<TestReply> {
  return testReplyFrom(await ctx.store.events.list(WINDOW), id);
}
