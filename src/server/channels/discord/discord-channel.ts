import type { KeyObject } from "node:crypto";
import { z } from "zod";
import type { AttachmentMode } from "../attachments";
import { sendInParts } from "../shared/send-in-parts";
import { readSignedJsonPost } from "../shared/signed-json-post";
import { splitReply } from "../shared/split-reply";
import {
  type AckOutcome,
  type Channel,
  type ChannelKv,
  type ChannelRequest,
  type ChannelResponse,
  ChannelSendError,
  type ChannelStatus,
  type Inbound,
  type ReplyTarget,
  type SendResult,
} from "../types";
import { type DiscordApi, refused, UNKNOWN_MESSAGE, UNKNOWN_WEBHOOK } from "./api-client";
import { ASK_COMMAND, ASK_COMMAND_NAME } from "./ask-command";
import { interactionSchema } from "./interaction";
import {
  type DiscordReplyMeta,
  EPHEMERAL,
  INTERACTION_TOKEN_TTL_MS,
  interpretInteraction,
} from "./interpret";
import { DISCORD_SIGNATURE_FAILURES, verifyDiscordSignature } from "./signature";

/** Discord's limit for a message's content. */
export const DISCORD_MESSAGE_LIMIT = 2_000;
/** Stop using a token a little before it expires: a reply must not race its expiry. */
const TOKEN_MARGIN_MS = 30_000;
/**
 * How long after the interaction an "Unknown Message" for @original means Discord has not
 * registered our deferred response yet (the reply can be sent the moment the response leaves,
 * and a fast agent's edit can get there first): retried. Later it means the response was
 * deleted, and the reply goes to the channel instead.
 */
const ORIGINAL_PENDING_MS = 60_000;

const metaSchema = z.strictObject({
  token: z.string().min(1),
  channelId: z.string().min(1),
  expiresAt: z.number(),
});

export interface DiscordChannelOptions {
  api: DiscordApi;
  publicKey: KeyObject;
  applicationId: string;
  attachments: AttachmentMode;
  /** Answers only the person who asked can see. */
  ephemeral: boolean;
  webhookUrl: string;
  kv: ChannelKv;
  clock: () => number;
}

/**
 * Discord through interactions (docs/channels/discord.md): `/ask` arrives signed at the
 * interactions endpoint, is acknowledged with a deferred response ("<app> is thinking…",
 * which stays until the reply, so it needs no repeating while the agent wakes), and the
 * agent's reply replaces it, with follow-ups for the pieces beyond 2,000 characters.
 */
export class DiscordChannel implements Channel {
  readonly name = "discord";
  readonly maxBodyBytes = 1024 * 1024;
  readonly replyInline = false;

  constructor(private readonly o: DiscordChannelOptions) {}

  async handle(req: ChannelRequest): Promise<Inbound> {
    const interaction = readSignedJsonPost(req, {
      hint: "Discord sends interactions with POST",
      verify: (r) => verifyDiscordSignature(this.o.publicKey, r.headers, r.rawBody, r.now),
      failures: DISCORD_SIGNATURE_FAILURES,
      schema: interactionSchema,
      shape: "a Discord interaction",
    });
    const decision = interpretInteraction(interaction, {
      applicationId: this.o.applicationId,
      attachments: this.o.attachments,
      now: req.now,
    });
    switch (decision.kind) {
      case "pong":
        return { kind: "respond", response: { status: 200, body: { type: 1 } } };
      case "answer":
        return {
          kind: "ignore",
          reason: decision.reason,
          response: { status: 200, body: decision.response },
        };
      case "message": {
        const { id, conversation, text, meta } = decision;
        return { kind: "message", message: { id, conversation, text, meta: { ...meta } } };
      }
    }
  }

  /** DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: Discord shows "thinking…" until the reply. */
  acknowledge(_outcome: AckOutcome): ChannelResponse {
    return {
      status: 200,
      body: this.o.ephemeral ? { type: 5, data: { flags: EPHEMERAL } } : { type: 5 },
    };
  }

  async send(to: ReplyTarget, text: string, signal: AbortSignal): Promise<SendResult> {
    const meta = replyMeta(to);
    const pieces = splitReply(text, DISCORD_MESSAGE_LIMIT);
    if (pieces.length === 0) pieces.push("(the agent replied with no text)");
    let viaChannel = this.o.clock() > meta.expiresAt - TOKEN_MARGIN_MS;
    // A 429 goes back to the outbox, which retries later and keeps replies in order.
    const sent = await sendInParts({
      parts: pieces,
      kv: this.o.kv,
      progressKey: `progress:${to.messageId}`,
      maxInlineWaitMs: 0,
      signal,
      send: async (piece, i) => {
        if (!viaChannel) {
          const r =
            i === 0
              ? await this.o.api.editOriginal(meta.token, piece, signal)
              : await this.o.api.followUp(
                  meta.token,
                  piece,
                  this.o.ephemeral ? EPHEMERAL : 0,
                  signal,
                );
          if (r.ok) return;
          if (i === 0 && r.code === UNKNOWN_MESSAGE && this.originalMayBePending(meta))
            throw new ChannelSendError(
              "Discord edit original response: the deferred response is not there yet (code 10008); retrying",
            );
          if (r.code !== UNKNOWN_WEBHOOK && r.code !== UNKNOWN_MESSAGE)
            throw refused(i === 0 ? "edit original response" : "follow-up message", r);
          viaChannel = true; // the token expired or the response was deleted
        }
        await this.postInChannel(meta.channelId, piece, signal);
      },
    });
    const how = viaChannel
      ? `in channel ${meta.channelId} (the interaction token had expired)`
      : "as the answer to /ask";
    return { sent: true, detail: `${sent} message(s) ${how}` };
  }

  private originalMayBePending(meta: DiscordReplyMeta): boolean {
    const askedAt = meta.expiresAt - INTERACTION_TOKEN_TTL_MS;
    return this.o.clock() - askedAt < ORIGINAL_PENDING_MS;
  }

  async register(signal: AbortSignal): Promise<{ ok: boolean; detail: string }> {
    try {
      const command = await this.o.api.upsertCommand(ASK_COMMAND, signal);
      if (!command.ok)
        return { ok: false, detail: failed(`registering /${ASK_COMMAND_NAME}`, command) };
      const endpoint = await this.o.api.setInteractionsEndpoint(this.o.webhookUrl, signal);
      if (!endpoint.ok)
        return {
          ok: false,
          detail: `${failed("setting the Interactions Endpoint URL", endpoint)}; Discord could not verify ${this.o.webhookUrl} (it must be reachable from the internet and answer its PING)`,
        };
      return {
        ok: true,
        detail: `/${ASK_COMMAND_NAME} registered; Discord sends interactions to ${this.o.webhookUrl}`,
      };
    } catch (err) {
      return { ok: false, detail: (err as Error).message };
    }
  }

  async status(signal: AbortSignal): Promise<ChannelStatus> {
    const base = { missingEnv: [], webhookUrl: this.o.webhookUrl };
    try {
      const [app, commands] = await Promise.all([
        this.o.api.getApplication(signal),
        this.o.api.listCommands(signal),
      ]);
      if (!app.ok)
        return {
          ...base,
          webhookRegistered: null,
          detail: failed("reading the application (is DISCORD_BOT_TOKEN right?)", app),
        };
      const endpoint = app.value.interactions_endpoint_url ?? null;
      const hasCommand = commands.ok && commands.value.some((c) => c.name === ASK_COMMAND_NAME);
      const pointsHere = endpoint === this.o.webhookUrl;
      const parts = [
        pointsHere
          ? "interactions come here"
          : `Interactions Endpoint URL is ${endpoint ? endpoint : "not set"}`,
        hasCommand
          ? `/${ASK_COMMAND_NAME} is registered`
          : `/${ASK_COMMAND_NAME} is not registered`,
      ];
      return { ...base, webhookRegistered: pointsHere && hasCommand, detail: parts.join("; ") };
    } catch (err) {
      return { ...base, webhookRegistered: null, detail: (err as Error).message };
    }
  }

  private async postInChannel(
    channelId: string,
    piece: string,
    signal: AbortSignal,
  ): Promise<void> {
    // An answer meant for one person must not become visible to the whole channel.
    if (this.o.ephemeral)
      throw new ChannelSendError(
        "the interaction token expired and private (ephemeral) replies cannot be posted to the channel",
        { permanent: true },
      );
    const r = await this.o.api.createMessage(channelId, piece, signal);
    if (!r.ok) throw refused("create message", r);
  }
}

function replyMeta(to: ReplyTarget): DiscordReplyMeta {
  const parsed = metaSchema.safeParse(to.meta);
  if (!parsed.success)
    throw new ChannelSendError(`message ${to.messageId} has no Discord interaction to answer`, {
      permanent: true,
    });
  return parsed.data;
}

function failed(what: string, r: { status: number; code: number | null }): string {
  return `${what} failed: HTTP ${r.status}${r.code === null ? "" : ` (Discord code ${r.code})`}`;
}
