import type { OpenDelivery } from "../store/types";

/**
 * Which conversation a model call is for. The gateway cannot see inside the agent, but it
 * knows which messages are being handed to it: with exactly one delivery open, the call is
 * that conversation's; with none (a cron job, the agent's own work) or several at once, it is
 * recorded as unattributed rather than guessed.
 */
export function attributedDelivery(open: readonly OpenDelivery[]): OpenDelivery | null {
  return open.length === 1 ? (open[0] ?? null) : null;
}

/** The key a conversation's spend is counted under: conversation ids are per channel. */
export function conversationKey(d: Pick<OpenDelivery, "channel" | "conversation">): string {
  return `${d.channel}:${d.conversation}`;
}

/** Pure: a stored conversation key back as channel and conversation ("" : unattributed). */
export function splitConversationKey(
  key: string,
): { channel: string; conversation: string } | null {
  const colon = key.indexOf(":");
  if (key === "" || colon < 0) return null;
  return { channel: key.slice(0, colon), conversation: key.slice(colon + 1) };
}
