import { randomBytes } from "node:crypto";
import { hubSignature } from "../../../src/server/channels/whatsapp/signature";
import {
  messagesPayload,
  startFakeWhatsapp,
  statusUpdate,
  textMessage,
} from "../../support/platforms/whatsapp";
import {
  describeChannelContract,
  type MessageSpec,
  type PlatformRequest,
} from "./channel-contract";

const appSecret = randomBytes(16).toString("hex");
const verifyToken = randomBytes(18).toString("base64url");
const PHONE_NUMBER_ID = "106540352242922";
const waId = (chat: string) => `4915112345${chat.replace(/\D/g, "").padStart(3, "0")}`;
const body = (m: MessageSpec) =>
  JSON.stringify(
    messagesPayload(PHONE_NUMBER_ID, [textMessage(waId(m.chat), `wamid.${m.id}`, m.text)]),
  );
const signed = (raw: string, secret = appSecret): PlatformRequest => ({
  method: "POST",
  headers: { "content-type": "application/json", "x-hub-signature-256": hubSignature(secret, raw) },
  body: raw,
});
const hub = (query: Record<string, string>) => () => ({
  method: "GET" as const,
  query: `?${new URLSearchParams(query)}`,
  headers: {},
  body: "",
});

describeChannelContract({
  name: "whatsapp",
  setup: async () => {
    const fake = await startFakeWhatsapp({ appSecret });
    return {
      config: { apiBaseUrl: fake.url },
      env: {
        WHATSAPP_ACCESS_TOKEN: fake.accessToken,
        WHATSAPP_APP_SECRET: appSecret,
        WHATSAPP_VERIFY_TOKEN: verifyToken,
      },
      cleanup: () => fake.stop(),
    };
  },
  message: (m) => signed(body(m)),
  stored: (m) => ({
    id: `whatsapp:wamid.${m.id}`,
    conversation: `whatsapp:${waId(m.chat)}`,
    text: m.text,
  }),
  forge: (req) => signed(req.body, randomBytes(16).toString("hex")),
  unsign: (req) => ({ ...req, headers: { "content-type": "application/json" } }),
  // Meta's signature carries no time: a replay is caught by the wamid dedupe.
  retry: (m) => signed(body(m)),
  batch: (ms) =>
    signed(
      JSON.stringify(
        messagesPayload(
          PHONE_NUMBER_ID,
          ms.map((m) => textMessage(waId(m.chat), `wamid.${m.id}`, m.text)),
        ),
      ),
    ),
  handshakes: [
    {
      name: "hub challenge with the right verify token",
      request: hub({
        "hub.mode": "subscribe",
        "hub.challenge": "1158201444",
        "hub.verify_token": verifyToken,
      }),
      status: 200,
      body: 1158201444, // the body is exactly the challenge (it parses as a JSON number)
    },
    {
      name: "hub challenge with a wrong verify token",
      request: hub({
        "hub.mode": "subscribe",
        "hub.challenge": "42",
        "hub.verify_token": "not-the-token",
      }),
      status: 403,
      body: {
        error: {
          code: "forbidden",
          message: "hub.verify_token does not match WHATSAPP_VERIFY_TOKEN",
        },
      },
    },
    {
      name: "hub challenge with another mode",
      request: hub({
        "hub.mode": "unsubscribe",
        "hub.challenge": "42",
        "hub.verify_token": verifyToken,
      }),
      status: 403,
      body: { error: { code: "forbidden", message: 'hub.mode: expected "subscribe"' } },
    },
  ],
  ignorable: [
    {
      name: "delivery status callback",
      request: () =>
        signed(
          JSON.stringify(messagesPayload(PHONE_NUMBER_ID, [], [statusUpdate("491511", "wamid.X")])),
        ),
      status: 200,
    },
    {
      name: "a reaction",
      request: () =>
        signed(
          JSON.stringify(
            messagesPayload(PHONE_NUMBER_ID, [
              {
                from: "491511",
                id: "wamid.R",
                type: "reaction",
                reaction: { message_id: "wamid.X", emoji: "👍" },
              },
            ]),
          ),
        ),
      status: 200,
    },
    {
      name: "another webhook field",
      request: () =>
        signed(
          JSON.stringify({
            object: "whatsapp_business_account",
            entry: [
              {
                id: "1",
                changes: [{ field: "account_update", value: { event: "VERIFIED_ACCOUNT" } }],
              },
            ],
          }),
        ),
      status: 200,
    },
  ],
  malformed: () => signed(JSON.stringify({ object: "page", entry: [] })),
  queuedStatus: 200,
  maxBodyBytes: 1024 * 1024,
});
