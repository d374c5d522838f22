import { isErrorNamed } from "../../protocol/named-error";
import type { InboxMessage } from "../domain/inbox-message";
import type { WakeHook } from "../sandbox/wake-hooks";

/** A message as a channel hands it to ClawRun, before it is queued. */
export interface ChannelMessage {
  /** The platform's message id: the dedupe key. */
  id: string;
  conversation: string;
  text: string;
  /** What the channel needs later to answer (kept with the queued message). */
  meta: Record<string, unknown>;
}

export interface ChannelRequest {
  rawBody: Buffer;
  headers: { get(name: string): string | null };
  now: number;
}

/** Bad input from the platform: answered with `status` and `{ error: { code, message } }`, nothing stored. */
export class ChannelRequestError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isErrorNamed(value, "ChannelRequestError");
  }

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ChannelRequestError";
  }
}

export interface Channel {
  readonly name: string;
  readonly maxBodyBytes: number;
  /** Verifies authenticity and parses; throws ChannelRequestError on bad input. */
  receive(req: ChannelRequest): ChannelMessage;
  /** Answers a queued message on the platform. `sent: false` when the channel has nowhere to send. */
  reply(message: InboxMessage, reply: string): Promise<{ sent: boolean; detail: string }>;
  readonly wakeHook: WakeHook;
}
