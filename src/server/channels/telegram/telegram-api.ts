import { z } from "zod";
import { ClawrunError } from "../../../protocol/clawrun-error";

/**
 * A small Bot API client (https://core.telegram.org/bots/api, "Making requests"):
 * POST <base>/bot<token>/<method> with a JSON body; every answer is
 * `{ ok, result }` or `{ ok: false, error_code, description, parameters? }`.
 * The token is part of the URL, so URLs never go into errors or logs.
 */
const responseSchema = z.looseObject({
  ok: z.boolean(),
  result: z.unknown().optional(),
  error_code: z.number().int().optional(),
  description: z.string().optional(),
  parameters: z
    .looseObject({
      retry_after: z.number().optional(),
      migrate_to_chat_id: z.number().int().optional(),
    })
    .optional(),
});

const webhookInfoSchema = z.looseObject({
  url: z.string(),
  pending_update_count: z.number().int(),
  last_error_date: z.number().int().optional(),
  last_error_message: z.string().optional(),
  allowed_updates: z.array(z.string()).optional(),
});
export type WebhookInfo = z.output<typeof webhookInfoSchema>;

const sentMessageSchema = z.looseObject({ message_id: z.number().int() });

/** A Bot API call that did not succeed (`code` 0: Telegram could not be reached). */
export class TelegramApiError extends ClawrunError {
  static override readonly errorName = "TelegramApiError";
  constructor(
    readonly method: string,
    readonly errorCode: number,
    readonly description: string,
    readonly retryAfterS: number | null = null,
    readonly migrateToChatId: number | null = null,
  ) {
    super("telegram_api_error", `Telegram ${method}: ${errorCode} ${description}`, {
      status: 502,
    });
  }
}

export interface SendMessageParams {
  chat_id: number;
  text: string;
  message_thread_id?: number;
  reply_parameters?: { message_id: number; allow_sending_without_reply?: boolean };
  link_preview_options?: { is_disabled: boolean };
}

export interface SetWebhookParams {
  url: string;
  secret_token: string;
  allowed_updates: string[];
  max_connections?: number;
  drop_pending_updates?: boolean;
}

export class TelegramApi {
  constructor(private readonly o: { baseUrl: string; token: string; timeoutMs?: number }) {}

  sendMessage(params: SendMessageParams, signal: AbortSignal): Promise<{ message_id: number }> {
    return this.call("sendMessage", params, sentMessageSchema, signal);
  }

  async sendChatAction(
    params: { chat_id: number; action: "typing"; message_thread_id?: number },
    signal: AbortSignal,
  ): Promise<void> {
    await this.call("sendChatAction", params, z.literal(true), signal);
  }

  async setWebhook(params: SetWebhookParams, signal: AbortSignal): Promise<void> {
    await this.call("setWebhook", params, z.literal(true), signal);
  }

  getWebhookInfo(signal: AbortSignal): Promise<WebhookInfo> {
    return this.call("getWebhookInfo", {}, webhookInfoSchema, signal);
  }

  private async call<T>(
    method: string,
    params: object,
    resultSchema: z.ZodType<T>,
    signal: AbortSignal,
  ): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.o.baseUrl}/bot${this.o.token}/${method}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(params),
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.o.timeoutMs ?? 10_000)]),
      });
    } catch (err) {
      const why = err instanceof Error && err.name === "TimeoutError" ? "timed out" : "failed";
      throw new TelegramApiError(method, 0, `request ${why}: ${(err as Error).message}`);
    }
    const text = await res.text();
    let body: z.output<typeof responseSchema> | null = null;
    try {
      const parsed = responseSchema.safeParse(JSON.parse(text));
      if (parsed.success) body = parsed.data;
    } catch {
      // not JSON (a proxy's error page): reported by HTTP status below
    }
    if (!body)
      throw new TelegramApiError(method, res.status, `non-Bot-API answer (HTTP ${res.status})`);
    if (!body.ok) {
      throw new TelegramApiError(
        method,
        body.error_code ?? res.status,
        body.description ?? "no description",
        body.parameters?.retry_after ?? null,
        body.parameters?.migrate_to_chat_id ?? null,
      );
    }
    const result = resultSchema.safeParse(body.result);
    if (!result.success)
      throw new TelegramApiError(method, res.status, "unexpected result shape in the answer");
    return result.data;
  }
}
