import type { Logger } from "pino";
import type { ChannelKv, ReplyTarget, WaitingIndicator } from "../types";
import type { SlackApi } from "./api-client";
import type { SlackReplyMeta } from "./interpret";

/** A notice is edited into its reply; one that outlives this was never answered. */
const NOTICE_TTL_MS = 24 * 60 * 60_000;

/**
 * Slack has no typing indicator for apps, so while the agent wakes ClawRun posts a short
 * notice where the reply will go and the reply later replaces it (chat.update). Slack keeps
 * the notice until then, so nothing needs repeating. One notice per conversation at a time
 * in this process; its ts is kept in the channel's store space too, so a reply sent by
 * another process (serverless) still finds it.
 */
export class WakingNotices {
  /** messageId → the notice's ts (null when posting it failed). */
  private readonly posting = new Map<string, Promise<string | null>>();
  private readonly showing = new Set<string>();

  constructor(private readonly o: { api: SlackApi; kv: ChannelKv; text: string; logger: Logger }) {}

  show(to: ReplyTarget, meta: SlackReplyMeta): WaitingIndicator {
    if (this.showing.has(to.conversation)) return { stop: async () => undefined };
    this.showing.add(to.conversation);
    const posted = this.post(to.messageId, meta);
    this.posting.set(to.messageId, posted);
    return {
      stop: async () => {
        await posted;
        this.showing.delete(to.conversation);
        // Not replied to yet (the delivery will be retried): the store still has the notice.
        this.posting.delete(to.messageId);
      },
    };
  }

  /** The ts of the notice posted for this message, if any. */
  async find(messageId: string): Promise<string | null> {
    const pending = this.posting.get(messageId);
    return pending ? await pending : await this.o.kv.get(key(messageId));
  }

  /** The reply replaced the notice: forget it (kept until then, so a retried reply finds it). */
  async replaced(messageId: string): Promise<void> {
    this.posting.delete(messageId);
    await this.o.kv.delete(key(messageId));
  }

  private async post(messageId: string, meta: SlackReplyMeta): Promise<string | null> {
    try {
      const ts = await this.o.api.postMessage(
        { channel: meta.channel, threadTs: meta.threadTs, text: this.o.text },
        AbortSignal.timeout(10_000),
      );
      await this.o.kv.set(key(messageId), ts, NOTICE_TTL_MS);
      return ts;
    } catch (err) {
      // The notice is a courtesy: the reply is still posted without it.
      this.o.logger.warn({ messageId, err: (err as Error).message }, "waking notice not posted");
      return null;
    }
  }
}

const key = (messageId: string) => `notice:${messageId}`;
