import {
  type Channel,
  ChannelRequestError,
  type ChannelResponse,
  ChannelSendError,
  type ChannelStatus,
  type Inbound,
  type SendResult,
} from "./types";

/**
 * Stands in for a configured channel whose secrets are missing: the rest of ClawRun keeps
 * working, its webhook answers 503 naming the variables (the platform retries later), and
 * the dashboard's checklist lists them.
 */
export class MisconfiguredChannel implements Channel {
  readonly maxBodyBytes = 0;
  readonly replyInline = false;

  constructor(
    readonly name: string,
    private readonly missing: string[],
    private readonly problems: string[],
    private readonly webhookUrl: string,
  ) {}

  private error(): ChannelRequestError {
    return new ChannelRequestError(
      503,
      "misconfigured",
      `channel "${this.name}" is not set up: ${this.problems.join("; ")}`,
    );
  }

  async handle(): Promise<Inbound> {
    throw this.error();
  }

  acknowledge(): ChannelResponse {
    throw this.error();
  }

  async send(): Promise<SendResult> {
    throw new ChannelSendError(this.error().message, { permanent: true });
  }

  /** Nothing is sent to the platform: registering without the channel's secrets cannot work. */
  async register(): Promise<{ ok: boolean; detail: string }> {
    return { ok: false, detail: this.error().message };
  }

  async status(): Promise<ChannelStatus> {
    return {
      missingEnv: this.missing,
      webhookRegistered: null,
      webhookUrl: this.webhookUrl,
      detail: this.problems.join("; "),
    };
  }
}
