import { startJsonServer } from "./http-json";

/**
 * A stand-in for the Telegram Bot API (https://core.telegram.org/bots/api), built from its
 * documented formats: `/bot<token>/<method>` taking JSON, form or query parameters, answers
 * `{ ok: true, result }` or `{ ok: false, error_code, description, parameters? }`, 429 with
 * `parameters.retry_after`, 1-4096 characters per sendMessage. It also plays Telegram's
 * side of webhooks: `deliver()` POSTs an update to the registered URL with the secret
 * header, and performs a method returned in the webhook's answer, as Telegram does.
 */
export interface TelegramCall {
  method: string;
  params: Record<string, unknown>;
  at: number;
  /** Performed from a webhook answer rather than called by ClawRun directly. */
  viaWebhookAnswer?: boolean;
}

export interface TelegramFault {
  error_code: number;
  description: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

export interface FakeTelegram {
  url: string;
  token: string;
  calls: TelegramCall[];
  callsTo(method: string): TelegramCall[];
  webhook: { url: string; secret_token?: string; allowed_updates?: string[] } | null;
  /** After `after` more successful calls, the next `times` calls of `method` fail with `fault`. */
  fail(method: string, fault: TelegramFault, o?: { times?: number; after?: number }): void;
  /** Sends an update to the registered webhook as Telegram would. */
  deliver(update: unknown): Promise<{ status: number; body: unknown }>;
  stop(): Promise<void>;
}

const ACTIONS = new Set([
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "upload_document",
  "choose_sticker",
  "find_location",
  "record_video_note",
  "upload_video_note",
]);

export async function startFakeTelegram(
  opts: { token?: string; allowHttpWebhook?: boolean } = {},
): Promise<FakeTelegram> {
  const token = opts.token ?? "123456789:AAHfakeTokenForClawrunTests_0123456789";
  const calls: TelegramCall[] = [];
  const faults = new Map<string, { fault: TelegramFault; skip: number }[]>();
  const nextMessageId = new Map<string, number>();
  const state: { webhook: FakeTelegram["webhook"] } = { webhook: null };

  const error = (
    status: number,
    description: string,
    parameters?: TelegramFault["parameters"],
  ) => ({
    status,
    body: { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) },
  });
  const ok = (result: unknown) => ({ status: 200, body: { ok: true, result } });

  const perform = (method: string, p: Record<string, unknown>) => {
    const queue = faults.get(method) ?? [];
    const head = queue[0];
    if (head && head.skip > 0) head.skip -= 1;
    else if (head) {
      queue.shift();
      return error(head.fault.error_code, head.fault.description, head.fault.parameters);
    }
    switch (method) {
      case "sendMessage": {
        if (p.chat_id === undefined) return error(400, "Bad Request: chat_id is empty");
        const text = typeof p.text === "string" ? p.text : "";
        if (text.trim() === "") return error(400, "Bad Request: message text is empty");
        if ([...text].length > 4096) return error(400, "Bad Request: message is too long");
        const chat = String(p.chat_id);
        const id = (nextMessageId.get(chat) ?? 0) + 1;
        nextMessageId.set(chat, id);
        return ok({
          message_id: id,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(p.chat_id), type: "private" },
          ...(p.message_thread_id !== undefined ? { message_thread_id: p.message_thread_id } : {}),
          text,
        });
      }
      case "sendChatAction":
        if (p.chat_id === undefined) return error(400, "Bad Request: chat_id is empty");
        if (!ACTIONS.has(String(p.action)))
          return error(400, "Bad Request: wrong parameter action in request");
        return ok(true);
      case "setWebhook": {
        const url = typeof p.url === "string" ? p.url : "";
        if (url === "") {
          state.webhook = null;
          return ok(true);
        }
        if (!url.startsWith("https://") && !opts.allowHttpWebhook)
          return error(400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook");
        const secret = p.secret_token;
        if (secret !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(String(secret)))
          return error(400, "Bad Request: secret token contains unallowed characters");
        const allowed =
          typeof p.allowed_updates === "string" ? JSON.parse(p.allowed_updates) : p.allowed_updates;
        state.webhook = {
          url,
          ...(secret !== undefined ? { secret_token: String(secret) } : {}),
          ...(Array.isArray(allowed) ? { allowed_updates: allowed.map(String) } : {}),
        };
        return ok(true);
      }
      case "deleteWebhook":
        state.webhook = null;
        return ok(true);
      case "getWebhookInfo":
        return ok({
          url: state.webhook?.url ?? "",
          has_custom_certificate: false,
          pending_update_count: 0,
          ...(state.webhook?.allowed_updates
            ? { allowed_updates: state.webhook.allowed_updates }
            : {}),
        });
      default:
        return error(404, "Not Found");
    }
  };

  const server = await startJsonServer(async (req) => {
    const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(req.path);
    if (!m) return error(404, "Not Found");
    if (m[1] !== token) return error(401, "Unauthorized");
    // Bot API methods are case-insensitive.
    const method = canonical(m[2] as string);
    calls.push({ method, params: req.params, at: Date.now() });
    return perform(method, req.params);
  });

  return {
    url: server.url,
    token,
    calls,
    callsTo: (method) => calls.filter((c) => c.method === method),
    get webhook() {
      return state.webhook;
    },
    fail(method, fault, o = {}) {
      const list = faults.get(method) ?? [];
      for (let i = 0; i < (o.times ?? 1); i++)
        list.push({ fault, skip: i === 0 ? (o.after ?? 0) : 0 });
      faults.set(method, list);
    },
    async deliver(update) {
      if (!state.webhook) throw new Error("no webhook registered with the fake Telegram");
      const res = await fetch(state.webhook.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(state.webhook.secret_token
            ? { "x-telegram-bot-api-secret-token": state.webhook.secret_token }
            : {}),
        },
        body: JSON.stringify(update),
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      const answer = body as { method?: unknown } | null;
      if (res.ok && answer && typeof answer === "object" && typeof answer.method === "string") {
        const { method, ...params } = answer as Record<string, unknown>;
        const name = canonical(String(method));
        calls.push({ method: name, params, at: Date.now(), viaWebhookAnswer: true });
        perform(name, params);
      }
      return { status: res.status, body };
    },
    stop: server.stop,
  };
}

const METHODS = ["sendMessage", "sendChatAction", "setWebhook", "deleteWebhook", "getWebhookInfo"];
function canonical(method: string): string {
  return METHODS.find((x) => x.toLowerCase() === method.toLowerCase()) ?? method;
}

/** A private-chat text message update, as Telegram sends it. */
export function textUpdate(u: {
  updateId: number;
  chatId: number;
  text: string;
  messageId?: number;
  threadId?: number;
  fromBot?: boolean;
}): Record<string, unknown> {
  return {
    update_id: u.updateId,
    message: {
      message_id: u.messageId ?? u.updateId,
      from: { id: u.chatId, is_bot: u.fromBot ?? false, first_name: "Ada" },
      chat:
        u.threadId !== undefined
          ? { id: u.chatId, type: "supergroup", title: "Team", is_forum: true }
          : { id: u.chatId, type: "private", first_name: "Ada" },
      date: Math.floor(Date.now() / 1000),
      ...(u.threadId !== undefined
        ? { message_thread_id: u.threadId, is_topic_message: true }
        : {}),
      text: u.text,
    },
  };
}
