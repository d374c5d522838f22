/**
 * Outbox ids, one scheme for every writer: the agent's reply to an inbox message and the
 * notices ClawRun itself sends about one (a budget notice) never collide, and each is
 * written once however often the message is redelivered.
 */
const REPLY_PREFIX = "reply:";

/** The outbox id of the reply to an inbox message: a redelivered message replies once. */
export function replyId(messageId: string): string {
  return `${REPLY_PREFIX}${messageId}`;
}

const NOTICE_PREFIX = "notice:";

/**
 * The outbox id of a message from ClawRun itself (e.g. a budget notice) about inbox message
 * `messageId`; `kind` (no ":") keeps it apart from the agent's reply to the same message.
 */
export function noticeId(kind: string, messageId: string): string {
  return `${NOTICE_PREFIX}${kind}:${messageId}`;
}

/** Pure: the inbox message a queued reply (or notice) answers. */
export function inReplyTo(id: string): string {
  if (id.startsWith(REPLY_PREFIX)) return id.slice(REPLY_PREFIX.length);
  if (id.startsWith(NOTICE_PREFIX)) {
    const colon = id.indexOf(":", NOTICE_PREFIX.length);
    if (colon >= 0) return id.slice(colon + 1);
  }
  return id;
}
