import { z } from "zod";
import { ChannelSendError } from "../types";

/**
 * The Discord HTTP API calls ClawRun makes (docs/channels/discord.md). Interaction
 * webhooks (edit the original response, follow-ups) are authorised by the interaction token
 * in the path; the rest by the bot token (`Authorization: Bot …`). Errors are JSON
 * `{ code, message }`; a 429 carries `retry_after` in seconds. Paths hold the interaction
 * token, so no error message here includes a URL.
 */

const TIMEOUT_MS = 10_000;
/** Discord asks bots to identify themselves this way. */
const USER_AGENT = "DiscordBot (ClawRun, 0.1.0)";
/** Discord's JSON error code for an unknown (e.g. expired) interaction webhook. */
export const UNKNOWN_WEBHOOK = 10015;
/** Discord's JSON error code for a message it does not know (e.g. an @original not there yet). */
export const UNKNOWN_MESSAGE = 10008;

const errorSchema = z.looseObject({
  code: z.number().optional(),
  message: z.string().optional(),
  retry_after: z.number().optional(),
  global: z.boolean().optional(),
});
const applicationSchema = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  interactions_endpoint_url: z.string().nullish(),
});
const commandSchema = z.looseObject({ id: z.string(), name: z.string() });

/** No @everyone, role or user pings from the agent's text. */
const NO_MENTIONS = { parse: [] as string[] };

export interface DiscordApiOptions {
  /** e.g. "https://discord.com/api/v10". */
  baseUrl: string;
  applicationId: string;
  botToken: string;
}

export type DiscordResult<T> =
  | { ok: true; value: T }
  | { ok: false; status: number; code: number | null };

export class DiscordApi {
  private readonly base: string;

  constructor(private readonly o: DiscordApiOptions) {
    this.base = o.baseUrl.replace(/\/+$/, "");
  }

  /** Replaces the deferred "thinking…" response; an expired token comes back as a result. */
  editOriginal(
    token: string,
    content: string,
    signal: AbortSignal,
  ): Promise<DiscordResult<unknown>> {
    const path = `/webhooks/${this.o.applicationId}/${encodeURIComponent(token)}/messages/@original`;
    return this.request(
      "edit original response",
      "PATCH",
      path,
      false,
      { content, allowed_mentions: NO_MENTIONS },
      signal,
    );
  }

  /** Another message answering the same interaction. */
  followUp(
    token: string,
    content: string,
    flags: number,
    signal: AbortSignal,
  ): Promise<DiscordResult<unknown>> {
    const path = `/webhooks/${this.o.applicationId}/${encodeURIComponent(token)}?wait=true`;
    const body = { content, allowed_mentions: NO_MENTIONS, ...(flags ? { flags } : {}) };
    return this.request("follow-up message", "POST", path, false, body, signal);
  }

  /** A plain message in a channel, as the bot (for replies after the token expired). */
  createMessage(
    channelId: string,
    content: string,
    signal: AbortSignal,
  ): Promise<DiscordResult<unknown>> {
    const body = { content, allowed_mentions: NO_MENTIONS };
    return this.request(
      "create message",
      "POST",
      `/channels/${channelId}/messages`,
      true,
      body,
      signal,
    );
  }

  /** Creates the global command, or updates the one with the same name. */
  upsertCommand(command: unknown, signal: AbortSignal): Promise<DiscordResult<unknown>> {
    const path = `/applications/${this.o.applicationId}/commands`;
    return this.request("create command", "POST", path, true, command, signal);
  }

  async listCommands(
    signal: AbortSignal,
  ): Promise<DiscordResult<z.output<typeof commandSchema>[]>> {
    const path = `/applications/${this.o.applicationId}/commands`;
    return parsed(
      await this.request("list commands", "GET", path, true, undefined, signal),
      z.array(commandSchema),
    );
  }

  async getApplication(
    signal: AbortSignal,
  ): Promise<DiscordResult<z.output<typeof applicationSchema>>> {
    return parsed(
      await this.request("get application", "GET", "/applications/@me", true, undefined, signal),
      applicationSchema,
    );
  }

  /** Discord checks the URL at once (a PING, and a forged request that must get 401). */
  setInteractionsEndpoint(url: string, signal: AbortSignal): Promise<DiscordResult<unknown>> {
    const body = { interactions_endpoint_url: url };
    return this.request("edit application", "PATCH", "/applications/@me", true, body, signal);
  }

  private async request(
    what: string,
    method: "GET" | "POST" | "PATCH",
    path: string,
    asBot: boolean,
    body: unknown,
    signal: AbortSignal,
  ): Promise<DiscordResult<unknown>> {
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        method,
        headers: {
          "user-agent": USER_AGENT,
          ...(asBot ? { authorization: `Bot ${this.o.botToken}` } : {}),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
      });
    } catch (err) {
      throw new ChannelSendError(
        `Discord ${what}: could not reach Discord (${(err as Error).name})`,
      );
    }
    const json: unknown = res.status === 204 ? null : await res.json().catch(() => null);
    if (res.ok) return { ok: true, value: json };
    const error = errorSchema.safeParse(json);
    const detail = error.success ? error.data : {};
    if (res.status === 429) {
      const header = Number(res.headers.get("retry-after"));
      const seconds = detail.retry_after ?? (Number.isFinite(header) ? header : 1);
      throw new ChannelSendError(
        `Discord ${what}: rate limited (429${detail.global ? ", global" : ""})`,
        {
          retryAfterMs: Math.ceil(seconds * 1000),
        },
      );
    }
    if (res.status >= 500) throw new ChannelSendError(`Discord ${what}: HTTP ${res.status}`);
    return { ok: false, status: res.status, code: detail.code ?? null };
  }
}

/** A refused request as a send failure: 4xx other than 429 cannot be fixed by retrying. */
export function refused(
  what: string,
  r: { status: number; code: number | null },
): ChannelSendError {
  return new ChannelSendError(
    `Discord ${what}: HTTP ${r.status}${r.code === null ? "" : ` (code ${r.code})`}`,
    { permanent: true },
  );
}

function parsed<T>(r: DiscordResult<unknown>, schema: z.ZodType<T>): DiscordResult<T> {
  if (!r.ok) return r;
  const value = schema.safeParse(r.value);
  if (!value.success)
    throw new ChannelSendError("Discord answered without the expected fields", { permanent: true });
  return { ok: true, value: value.data };
}
