import { z } from "zod";
import { ClawrunError } from "../../../protocol/clawrun-error";

/**
 * The few Graph API calls the WhatsApp channel makes (Cloud API "Messages", "Typing
 * indicators"; Graph API "/{app-id}/subscriptions"; "/{waba-id}/subscribed_apps"). Errors
 * come as `{ error: { message, type, code, error_subcode?, error_data?, fbtrace_id } }`.
 * Tokens travel in the Authorization header or the form body, never in a URL.
 */
const errorSchema = z.looseObject({
  error: z.looseObject({
    message: z.string().optional(),
    type: z.string().optional(),
    code: z.number().int().optional(),
    error_subcode: z.number().int().optional(),
    error_data: z.looseObject({ details: z.string().optional() }).optional(),
  }),
});

const sentSchema = z.looseObject({ messages: z.array(z.looseObject({ id: z.string() })).min(1) });
const successSchema = z.looseObject({ success: z.union([z.literal(true), z.literal("true")]) });
const subscriptionsSchema = z.looseObject({
  data: z.array(
    z.looseObject({
      object: z.string(),
      callback_url: z.string().optional(),
      active: z.boolean().optional(),
      fields: z.array(z.union([z.string(), z.looseObject({ name: z.string() })])).optional(),
    }),
  ),
});
export type AppSubscription = z.output<typeof subscriptionsSchema>["data"][number];

/** A Graph API call that did not succeed (`code` 0 with `httpStatus` 0: unreachable). */
export class GraphApiError extends ClawrunError {
  static override readonly errorName = "GraphApiError";
  constructor(
    readonly operation: string,
    readonly httpStatus: number,
    readonly graphCode: number,
    readonly detail: string,
    /** From a Retry-After header, when Meta sends one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super("whatsapp_api_error", `WhatsApp ${operation}: ${httpStatus} (#${graphCode}) ${detail}`, {
      status: 502,
    });
  }
}

export interface GraphApiOptions {
  baseUrl: string;
  version: string;
  accessToken: string;
  timeoutMs?: number;
}

export class GraphApi {
  constructor(private readonly o: GraphApiOptions) {}

  /** A text message to a person (1-4096 characters). Returns the new message's wamid. */
  async sendText(
    p: { phoneNumberId: string; to: string; body: string; replyTo?: string },
    signal: AbortSignal,
  ): Promise<string> {
    const sent = await this.request(
      "send message",
      `/${p.phoneNumberId}/messages`,
      {
        method: "POST",
        json: {
          messaging_product: "whatsapp",
          recipient_type: "individual",
          to: p.to,
          type: "text",
          text: { preview_url: false, body: p.body },
          ...(p.replyTo ? { context: { message_id: p.replyTo } } : {}),
        },
        bearer: this.o.accessToken,
      },
      sentSchema,
      signal,
    );
    return sent.messages[0]?.id ?? "";
  }

  /** Marks the message read and shows "typing…" for up to 25 s or until the reply. */
  async typing(p: { phoneNumberId: string; wamid: string }, signal: AbortSignal): Promise<void> {
    await this.request(
      "typing indicator",
      `/${p.phoneNumberId}/messages`,
      {
        method: "POST",
        json: {
          messaging_product: "whatsapp",
          status: "read",
          message_id: p.wamid,
          typing_indicator: { type: "text" },
        },
        bearer: this.o.accessToken,
      },
      successSchema,
      signal,
    );
  }

  /** Points the app's whatsapp_business_account webhook at `callbackUrl` (Meta verifies it at once). */
  async subscribeApp(
    p: { appId: string; appSecret: string; callbackUrl: string; verifyToken: string },
    signal: AbortSignal,
  ): Promise<void> {
    await this.request(
      "subscribe app",
      `/${p.appId}/subscriptions`,
      {
        method: "POST",
        form: {
          object: "whatsapp_business_account",
          callback_url: p.callbackUrl,
          verify_token: p.verifyToken,
          fields: "messages",
          include_values: "true",
          access_token: `${p.appId}|${p.appSecret}`,
        },
      },
      successSchema,
      signal,
    );
  }

  async appSubscriptions(
    p: { appId: string; appSecret: string },
    signal: AbortSignal,
  ): Promise<AppSubscription[]> {
    const r = await this.request(
      "read app subscriptions",
      `/${p.appId}/subscriptions`,
      { method: "GET", bearer: `${p.appId}|${p.appSecret}` },
      subscriptionsSchema,
      signal,
    );
    return r.data;
  }

  /** Subscribes the app to the business account's webhooks (needed once per WABA). */
  async subscribeWaba(wabaId: string, signal: AbortSignal): Promise<void> {
    await this.request(
      "subscribe app to the business account",
      `/${wabaId}/subscribed_apps`,
      { method: "POST", bearer: this.o.accessToken },
      successSchema,
      signal,
    );
  }

  private async request<T>(
    operation: string,
    path: string,
    r: {
      method: "GET" | "POST";
      json?: unknown;
      form?: Record<string, string>;
      bearer?: string;
    },
    schema: z.ZodType<T>,
    signal: AbortSignal,
  ): Promise<T> {
    const headers: Record<string, string> = {};
    if (r.bearer) headers.authorization = `Bearer ${r.bearer}`;
    let body: string | undefined;
    if (r.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(r.json);
    } else if (r.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(r.form).toString();
    }
    let res: Response;
    try {
      res = await fetch(`${this.o.baseUrl}/${this.o.version}${path}`, {
        method: r.method,
        headers,
        body,
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.o.timeoutMs ?? 10_000)]),
      });
    } catch (err) {
      const why = err instanceof Error && err.name === "TimeoutError" ? "timed out" : "failed";
      throw new GraphApiError(operation, 0, 0, `request ${why}: ${(err as Error).message}`);
    }
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: reported by status below
    }
    if (!res.ok) {
      const e = errorSchema.safeParse(json);
      const err = e.success ? e.data.error : null;
      const retryAfter = Number(res.headers.get("retry-after"));
      throw new GraphApiError(
        operation,
        res.status,
        err?.code ?? 0,
        err ? (err.error_data?.details ?? err.message ?? "no message") : `non-Graph answer`,
        retryAfter > 0 ? retryAfter * 1000 : null,
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      throw new GraphApiError(operation, res.status, 0, "unexpected answer shape");
    return parsed.data;
  }
}
