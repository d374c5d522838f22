import type { Logger } from "pino";
import type { z } from "zod";
import { ClawrunError } from "../../protocol/clawrun-error";
import type { WakeHook } from "../domain/wake-hook";

/**
 * The channel port (docs/architecture.md, "Channels"). A chat platform's webhook always lands
 * on ClawRun; the channel turns the request into a message for the durable inbox (or a direct
 * answer), and later sends the agent's reply back through the platform's API. The inbox and
 * the lifecycle only ever see this interface, never a channel's name.
 */

/** One webhook request as a channel sees it. */
export interface ChannelRequest {
  method: "GET" | "POST";
  url: URL;
  headers: { get(name: string): string | null };
  /** Exact bytes (signatures are computed over them); empty for GET. */
  rawBody: Buffer;
  now: number;
}

/** A message as a channel hands it to ClawRun, before it is queued. */
export interface ChannelMessage {
  /** The platform's message/event id: the dedupe key (a platform retry is the same id). */
  id: string;
  /** Where the reply goes and what orders deliveries (chat id, channel + thread, …). */
  conversation: string;
  text: string;
  /** What the channel needs later to answer (chat id, thread, interaction token, …). */
  meta: Record<string, unknown>;
}

/** A response to the platform: JSON when `body` is not a string. */
export interface ChannelResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What a channel makes of one webhook request. Bad input throws ChannelRequestError instead. */
export type Inbound =
  /** A message to queue. ClawRun acknowledges it (see Channel.acknowledge) once it is stored. */
  | { kind: "message"; message: ChannelMessage }
  /**
   * Several messages in one request (WhatsApp batches them): stored in order, acknowledged
   * once all are stored. `after` runs once the answer is sent (e.g. refusals for the parts
   * of the batch that are not messages the agent can read).
   */
  | { kind: "batch"; messages: ChannelMessage[]; after?: () => Promise<void> }
  /** Answer directly and store nothing (a URL-verification challenge, a PING, a hub challenge). */
  | { kind: "respond"; response: ChannelResponse }
  /**
   * Not a message for the agent (the bot's own messages, edits, status callbacks): answer and
   * store nothing. `after` runs once the answer is sent (e.g. telling the sender that the agent
   * cannot read that kind of message).
   */
  | { kind: "ignore"; reason: string; response: ChannelResponse; after?: () => Promise<void> };

/** How a stored message ended up, for the acknowledgement the platform gets. */
export type AckOutcome =
  | { kind: "queued"; id: string }
  /** Every message of the request was stored before (a platform retry). */
  | { kind: "duplicate"; id: string }
  /** Delivered while the platform waited (only channels with `replyInline`). */
  | { kind: "delivered"; id: string; reply: string; details: Record<string, unknown> };

/** Where a reply goes: the stored message's conversation and the channel's own meta. */
export interface ReplyTarget {
  messageId: string;
  conversation: string;
  meta: Record<string, unknown>;
}

export interface SendResult {
  /** False when the channel is configured to have nowhere to send (e.g. no reply URL). */
  sent: boolean;
  /** One line for the event log, without secrets. */
  detail: string;
}

/** A typing indicator or "waking up" notice shown while the agent wakes; stop() ends it. */
export interface WaitingIndicator {
  stop(): Promise<void>;
}

/** What ClawRun knows when it shows the waiting indicator. */
export interface WakingContext {
  /**
   * The agent was not running just after the message was acknowledged, so a wake is coming (false: it
   * runs and will answer shortly; a "waking up" notice would be wrong).
   */
  waking: boolean;
}

/** What the setup checklist and the dashboard show for a channel. */
export interface ChannelStatus {
  /** Environment variables it needs that are not set (names only). */
  missingEnv: string[];
  /** Whether the platform points at this deployment (null: nothing to register). */
  webhookRegistered: boolean | null;
  /** The URL the platform must call. */
  webhookUrl: string;
  detail: string;
}

export interface Channel {
  readonly name: string;
  readonly maxBodyBytes: number;
  /**
   * When the agent is running, deliver while the platform waits and answer with the reply
   * (the generic webhook). Otherwise the platform is acknowledged at once and the reply is sent.
   */
  readonly replyInline: boolean;
  /** Verifies authenticity and parses (GET for platform verification, POST for events). */
  handle(req: ChannelRequest): Promise<Inbound>;
  /** The answer the platform gets once the message is stored (or delivered inline). */
  acknowledge(outcome: AckOutcome): ChannelResponse;
  /**
   * Sends the agent's reply. Throws ChannelSendError: with `retryAfterMs` when the platform
   * asked to slow down (429), `permanent` when retrying cannot help.
   */
  send(to: ReplyTarget, text: string, signal: AbortSignal): Promise<SendResult>;
  /**
   * Shown to the sender from the acknowledgement until the message is delivered and its
   * reply sent (typing indicator, "waking up" notice); optional. Repeat it inside if the
   * platform's indicator expires.
   */
  whileWaking?(to: ReplyTarget, ctx: WakingContext): WaitingIndicator;
  /** Points the platform at this deployment (Telegram setWebhook, Discord command); optional. */
  register?(signal: AbortSignal): Promise<{ ok: boolean; detail: string }>;
  status(signal: AbortSignal): Promise<ChannelStatus>;
  /** Only for a channel whose platform would otherwise call the daemon directly. */
  readonly wakeHook?: WakeHook;
}

/** Bad input from the platform: answered with `status` and `{ error: { code, message } }`, nothing stored. */
export class ChannelRequestError extends ClawrunError {
  static override readonly errorName = "ChannelRequestError";
  constructor(status: number, code: string, message: string) {
    super(code, message, { status });
  }
}

/** A reply the platform refused or could not take. */
export class ChannelSendError extends ClawrunError {
  static override readonly errorName = "ChannelSendError";
  readonly retryAfterMs: number | null;
  readonly permanent: boolean;
  constructor(message: string, opts: { retryAfterMs?: number | null; permanent?: boolean } = {}) {
    super("channel_send_failed", message, { status: 502 });
    this.retryAfterMs = opts.retryAfterMs ?? null;
    this.permanent = opts.permanent ?? false;
  }
}

/** A small key-value space of the channel's own in the store (e.g. a "waking up" message id). */
export interface ChannelKv {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
}

/** What the composition root gives a channel. */
export interface ChannelDeps<Env> {
  /** The variables the channel declared in its envSchema, parsed. */
  env: Env;
  /** This deployment's public base URL (webhook URLs are built from it). */
  publicUrl: string;
  /**
   * VERCEL_AUTOMATION_BYPASS_SECRET when Deployment Protection is on (absent: off); webhook
   * URLs carry it (see webhook-url.ts).
   */
  protectionBypass?: string | null;
  /** The agent's name in its webhook URLs (docs/several-agents.md); absent for the deployment's first. */
  agent?: string | null;
  kv: ChannelKv;
  clock: () => number;
  logger: Logger;
}

/**
 * A chat channel as one module: `src/server/channels/<name>/index.ts` exports one of these and
 * `src/server/channels/index.ts` lists it. The clawrun.json `channels` section, the env
 * requirements and the webhook route's list of channels derive from that list.
 */
export interface ChannelModule<Config = unknown, Env = unknown> {
  readonly name: string;
  /** One line for docs and the dashboard. */
  readonly description: string;
  /** `channels.<name>` in clawrun.json (a channel is enabled by having its key there). */
  readonly configSchema: z.ZodType<Config>;
  /** Tokens and secrets it reads from the environment; only these reach it. */
  readonly envSchema: z.ZodType<Env>;
  create(config: Config, deps: ChannelDeps<Env>): Channel;
}
