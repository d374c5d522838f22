import { z } from "zod";
import type { InboxMessage, NewInboxMessage } from "../../domain/inbox-message";
import { assembleInboxMessage, inboxBody } from "../stored-data";
import type { MessageQueue } from "../types";
import { parseReply, type RedisContext } from "./context";
import type { QueueKeys } from "./keys";
import {
  ACK,
  CLAIM,
  DEFER,
  ENQUEUE,
  FAIL,
  LIST_MESSAGES,
  MESSAGE_FIELDS,
  RELEASE,
  RETRY_DEAD,
} from "./scripts";

const fieldsReply = z.array(z.string().nullable()).length(MESSAGE_FIELDS.length);
const enqueueReply = z.tuple([z.union([z.literal(0), z.literal(1)]), fieldsReply.nullable()]);
const messagesReply = z.array(z.tuple([z.string(), fieldsReply]));
const flagReply = z.union([z.literal(0), z.literal(1)]);
const failReply = z.enum(["retry", "dead", "missing"]);
const countsReply = z.tuple([z.number(), z.number()]);

/** The durable inbox on redis: one Lua script (one round trip) per operation. */
export class RedisMessageQueue implements MessageQueue {
  private readonly scripts;

  constructor(
    private readonly ctx: RedisContext,
    private readonly keys: QueueKeys,
  ) {
    const s = (src: string) => ctx.redis.createScript(src);
    this.scripts = {
      enqueue: s(ENQUEUE),
      claim: s(CLAIM),
      ack: s(ACK),
      release: s(RELEASE),
      fail: s(FAIL),
      retryDead: s(RETRY_DEAD),
      defer: s(DEFER),
      list: s(LIST_MESSAGES),
    };
  }

  async enqueue(
    message: NewInboxMessage,
  ): Promise<{ duplicate: boolean; message: InboxMessage | null }> {
    const { keys } = this;
    const key = keys.message(message.id);
    const raw = await this.ctx.call(key, () =>
      this.scripts.enqueue.exec(
        [keys.dedupe(message.id), key, keys.pending, keys.seq],
        [
          message.id,
          inboxBody(message),
          message.conversation,
          String(this.ctx.opts.dedupeWindowMs),
        ],
      ),
    );
    const [duplicate, fields] = parseReply(enqueueReply, raw, "enqueue");
    return {
      duplicate: duplicate === 1,
      message: fields ? this.toMessage(message.id, fields) : null,
    };
  }

  listPending(limit: number): Promise<InboxMessage[]> {
    return this.list("pending", limit);
  }

  listDead(limit: number): Promise<InboxMessage[]> {
    return this.list("dead", limit);
  }

  private async list(which: "pending" | "dead", limit: number): Promise<InboxMessage[]> {
    if (limit <= 0) return [];
    const { keys } = this;
    const zset = which === "pending" ? keys.pending : keys.dead;
    const raw = await this.ctx.call(zset, () =>
      this.scripts.list.exec(
        [zset],
        [keys.messagePrefix, String(limit), which === "dead" ? "1" : "0"],
      ),
    );
    return parseReply(messagesReply, raw, "list").map(([id, f]) => this.toMessage(id, f));
  }

  async claim(now: number, visibilityMs: number, limit: number): Promise<InboxMessage[]> {
    if (limit <= 0) return [];
    const { keys } = this;
    const raw = await this.ctx.call(keys.pending, () =>
      this.scripts.claim.exec(
        [keys.pending],
        [keys.messagePrefix, String(now), String(visibilityMs), String(limit)],
      ),
    );
    return parseReply(messagesReply, raw, "claim").map(([id, f]) => this.toMessage(id, f));
  }

  async ack(id: string): Promise<boolean> {
    const { keys } = this;
    const raw = await this.ctx.call(keys.message(id), () =>
      this.scripts.ack.exec([keys.pending, keys.message(id)], [id]),
    );
    return parseReply(flagReply, raw, "ack") === 1;
  }

  async release(id: string): Promise<boolean> {
    const { keys } = this;
    const raw = await this.ctx.call(keys.message(id), () =>
      this.scripts.release.exec([keys.pending, keys.message(id)], [id]),
    );
    return parseReply(flagReply, raw, "release") === 1;
  }

  async defer(id: string, notBefore: number): Promise<boolean> {
    const { keys } = this;
    const raw = await this.ctx.call(keys.message(id), () =>
      this.scripts.defer.exec([keys.pending, keys.message(id)], [id, String(notBefore)]),
    );
    return parseReply(flagReply, raw, "defer") === 1;
  }

  async fail(
    id: string,
    error: string,
    opts: { maxAttempts: number; retryAt: number },
  ): Promise<"retry" | "dead" | "missing"> {
    const { keys } = this;
    const raw = await this.ctx.call(keys.message(id), () =>
      this.scripts.fail.exec(
        [keys.pending, keys.dead, keys.message(id), keys.deadSeq],
        [id, error, String(opts.maxAttempts), String(opts.retryAt)],
      ),
    );
    return parseReply(failReply, raw, "fail");
  }

  async retryDead(id: string): Promise<boolean> {
    const { keys } = this;
    const raw = await this.ctx.call(keys.message(id), () =>
      this.scripts.retryDead.exec([keys.dead, keys.pending, keys.message(id)], [id]),
    );
    return parseReply(flagReply, raw, "retryDead") === 1;
  }

  /** Both counts in one pipelined round trip. */
  async count(): Promise<{ pending: number; dead: number }> {
    const { keys } = this;
    const { redis } = this.ctx;
    const raw = await this.ctx.call(keys.pending, () =>
      redis.pipeline().zcard(keys.pending).zcard(keys.dead).exec(),
    );
    const [pending, dead] = parseReply(countsReply, raw, "countInbox");
    return { pending, dead };
  }

  private toMessage(id: string, fields: (string | null)[]): InboxMessage {
    const [body, seq, attempts, lastError, notBefore, claimedUntil] = fields;
    return assembleInboxMessage(
      body,
      { seq, attempts, lastError, notBefore, claimedUntil },
      this.keys.message(id),
    );
  }
}
