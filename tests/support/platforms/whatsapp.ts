import { createHmac, randomBytes } from "node:crypto";
import { startJsonServer } from "./http-json";

/**
 * A stand-in for Meta's Graph API as the WhatsApp Cloud API uses it, built from the
 * documented formats: `POST /<version>/<phone-number-id>/messages` with a Bearer token
 * (text messages answer `{ messaging_product, contacts, messages: [{ id }] }`; the typing
 * indicator answers `{ success: true }`), `/<version>/<app-id>/subscriptions` with the app
 * token "<app-id>|<app-secret>" (a new subscription is verified by calling the callback with
 * a hub challenge, as Meta does), `/<version>/<waba-id>/subscribed_apps`, and Graph errors
 * `{ error: { message, type, code, error_data, fbtrace_id } }`. It also plays Meta's side of
 * webhooks: `deliver()` POSTs a payload signed with the app secret (X-Hub-Signature-256).
 */
export interface GraphCall {
  method: string;
  /** Path without the version, e.g. "/1234/messages". */
  path: string;
  params: Record<string, unknown>;
  authorization: string | undefined;
  at: number;
}

export interface GraphFault {
  status: number;
  code: number;
  message: string;
  retryAfterS?: number;
}

export interface FakeWhatsapp {
  url: string;
  version: string;
  accessToken: string;
  appId: string;
  appSecret: string;
  calls: GraphCall[];
  /** Text messages sent (typing indicators excluded), in order. */
  sentTexts(): { to: string; body: string; phoneNumberId: string; context?: unknown }[];
  /** Typing indicators shown, in order. */
  typing(): { messageId: string; phoneNumberId: string }[];
  subscription: { callback_url: string; fields: string[]; active: boolean } | null;
  subscribedWabas: string[];
  /** After `after` more successful sends, the next `times` sends fail with `fault`. */
  failSends(fault: GraphFault, o?: { times?: number; after?: number }): void;
  /** POSTs a webhook payload, signed with the app secret, to `url` (default: the subscription's). */
  deliver(payload: unknown, url?: string): Promise<{ status: number; body: string }>;
  stop(): Promise<void>;
}

export async function startFakeWhatsapp(
  opts: { version?: string; accessToken?: string; appId?: string; appSecret?: string } = {},
): Promise<FakeWhatsapp> {
  const version = opts.version ?? "v24.0";
  const accessToken = opts.accessToken ?? `EAAG${randomBytes(24).toString("hex")}`;
  const appId = opts.appId ?? "1234567890123";
  const appSecret = opts.appSecret ?? randomBytes(16).toString("hex");
  const calls: GraphCall[] = [];
  const faults: { fault: GraphFault; skip: number }[] = [];
  const state: { subscription: FakeWhatsapp["subscription"]; wabas: string[] } = {
    subscription: null,
    wabas: [],
  };

  const graphError = (status: number, code: number, message: string, headers = {}) => ({
    status,
    headers,
    body: {
      error: {
        message: `(#${code}) ${message}`,
        type: "OAuthException",
        code,
        error_data: { messaging_product: "whatsapp", details: message },
        fbtrace_id: randomBytes(8).toString("base64url"),
      },
    },
  });
  const bearer = (a: string | undefined) => /^Bearer\s+(.+)$/i.exec(a ?? "")?.[1];

  const server = await startJsonServer(async (req) => {
    const prefix = `/${version}/`;
    if (!req.path.startsWith(prefix)) return graphError(400, 2500, "Unknown path components");
    const path = req.path.slice(prefix.length - 1);
    const auth = req.headers.authorization;
    calls.push({
      method: req.method,
      path,
      params: req.params,
      authorization: auth,
      at: Date.now(),
    });
    const token = bearer(auth) ?? (req.params.access_token as string | undefined);
    const appToken = `${appId}|${appSecret}`;

    const messages = /^\/(\d+)\/messages$/.exec(path);
    if (messages && req.method === "POST") {
      if (token !== accessToken)
        return graphError(401, 190, "Invalid OAuth access token - Cannot parse access token");
      const p = req.params;
      if (p.messaging_product !== "whatsapp")
        return graphError(400, 100, "The parameter messaging_product is required.");
      if (p.status === "read") {
        if (typeof p.message_id !== "string" || !p.message_id.startsWith("wamid."))
          return graphError(400, 100, "Invalid parameter: message_id");
        return { status: 200, body: { success: true } };
      }
      const head = faults[0];
      if (head && head.skip > 0) head.skip -= 1;
      else if (head) {
        faults.shift();
        const f = head.fault;
        return graphError(
          f.status,
          f.code,
          f.message,
          f.retryAfterS ? { "retry-after": String(f.retryAfterS) } : {},
        );
      }
      const body = (p.text as { body?: unknown } | undefined)?.body;
      if (p.type !== "text" || typeof body !== "string" || body.length === 0)
        return graphError(400, 100, "Invalid parameter: text.body is required for type text");
      if ([...body].length > 4096)
        return graphError(400, 100, "Param text['body'] must be at most 4096 characters long.");
      if (typeof p.to !== "string" || !/^\+?\d{5,20}$/.test(p.to))
        return graphError(400, 100, "Invalid parameter: to");
      return {
        status: 200,
        body: {
          messaging_product: "whatsapp",
          contacts: [{ input: p.to, wa_id: p.to.replace(/^\+/, "") }],
          messages: [{ id: `wamid.${randomBytes(12).toString("base64url")}` }],
        },
      };
    }

    const subscriptions = /^\/(\d+)\/subscriptions$/.exec(path);
    if (subscriptions) {
      if (subscriptions[1] !== appId)
        return graphError(400, 100, "Unsupported request: unknown app id");
      if (token !== appToken) return graphError(400, 190, "Invalid OAuth access token signature.");
      if (req.method === "GET") {
        const s = state.subscription;
        return {
          status: 200,
          body: {
            data: s
              ? [
                  {
                    object: "whatsapp_business_account",
                    callback_url: s.callback_url,
                    active: s.active,
                    fields: s.fields.map((name) => ({ name, version })),
                  },
                ]
              : [],
          },
        };
      }
      const p = req.params;
      if (p.object !== "whatsapp_business_account" || typeof p.callback_url !== "string")
        return graphError(400, 100, "Invalid parameter: object and callback_url are required");
      const challenge = String(Math.floor(Math.random() * 1e9));
      const verifyUrl = new URL(p.callback_url);
      verifyUrl.searchParams.set("hub.mode", "subscribe");
      verifyUrl.searchParams.set("hub.challenge", challenge);
      verifyUrl.searchParams.set("hub.verify_token", String(p.verify_token ?? ""));
      const check = await fetch(verifyUrl).catch(() => null);
      const answer = check ? await check.text() : "";
      if (check?.status !== 200 || answer !== challenge)
        return graphError(
          400,
          2200,
          `Callback verification failed with the following errors: HTTP Status Code = ${check?.status ?? "unreachable"}; HTTP Message = ${answer.slice(0, 100)}`,
        );
      state.subscription = {
        callback_url: p.callback_url,
        fields: String(p.fields ?? "")
          .split(",")
          .filter(Boolean),
        active: true,
      };
      return { status: 200, body: { success: true } };
    }

    const wabaApps = /^\/(\d+)\/subscribed_apps$/.exec(path);
    if (wabaApps && req.method === "POST") {
      if (token !== accessToken)
        return graphError(401, 190, "Invalid OAuth access token - Cannot parse access token");
      state.wabas.push(wabaApps[1] as string);
      return { status: 200, body: { success: true } };
    }
    return graphError(400, 100, `Unsupported ${req.method} request`);
  });

  const sends = () => calls.filter((c) => /^\/\d+\/messages$/.test(c.path));
  return {
    url: server.url,
    version,
    accessToken,
    appId,
    appSecret,
    calls,
    sentTexts: () =>
      sends()
        .filter((c) => c.params.type === "text")
        .map((c) => ({
          to: String(c.params.to),
          body: String((c.params.text as { body: string }).body),
          phoneNumberId: c.path.split("/")[1] as string,
          ...(c.params.context ? { context: c.params.context } : {}),
        })),
    typing: () =>
      sends()
        .filter((c) => c.params.status === "read")
        .map((c) => ({
          messageId: String(c.params.message_id),
          phoneNumberId: c.path.split("/")[1] as string,
        })),
    get subscription() {
      return state.subscription;
    },
    get subscribedWabas() {
      return state.wabas;
    },
    failSends(fault, o = {}) {
      for (let i = 0; i < (o.times ?? 1); i++)
        faults.push({ fault, skip: i === 0 ? (o.after ?? 0) : 0 });
    },
    async deliver(payload, url) {
      const target = url ?? state.subscription?.callback_url;
      if (!target) throw new Error("no webhook subscribed on the fake Graph API");
      const raw = JSON.stringify(payload);
      const res = await fetch(target, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-hub-signature-256": `sha256=${createHmac("sha256", appSecret).update(raw).digest("hex")}`,
        },
        body: raw,
      });
      return { status: res.status, body: await res.text() };
    },
    stop: server.stop,
  };
}

/** A messages webhook with the given messages (and optional statuses), as Meta sends it. */
export function messagesPayload(
  phoneNumberId: string,
  messages: Record<string, unknown>[],
  statuses: Record<string, unknown>[] = [],
): Record<string, unknown> {
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: "102290129340398",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550783881", phone_number_id: phoneNumberId },
              ...(messages.length
                ? {
                    contacts: [...new Set(messages.map((m) => String(m.from)))].map((wa_id) => ({
                      profile: { name: "Ada" },
                      wa_id,
                    })),
                    messages,
                  }
                : {}),
              ...(statuses.length ? { statuses } : {}),
            },
          },
        ],
      },
    ],
  };
}

/** One text message from `from`, with a wamid. */
export function textMessage(from: string, wamid: string, body: string): Record<string, unknown> {
  return {
    from,
    id: wamid,
    timestamp: String(Math.floor(Date.now() / 1000)),
    type: "text",
    text: { body },
  };
}

/** A delivery status callback about a message the business sent. */
export function statusUpdate(recipient: string, wamid: string, status = "delivered") {
  return {
    id: wamid,
    status,
    timestamp: String(Math.floor(Date.now() / 1000)),
    recipient_id: recipient,
  };
}
