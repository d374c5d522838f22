import { randomBytes } from "node:crypto";
import { startFakeTelegram, textUpdate } from "../../support/platforms/telegram";
import {
  describeChannelContract,
  type MessageSpec,
  type PlatformRequest,
} from "./channel-contract";

const secret = randomBytes(24).toString("base64url");
const chatId = (chat: string) => 1000 + Number(chat.replace(/\D/g, "") || 0);
const update = (m: MessageSpec) =>
  JSON.stringify(textUpdate({ updateId: Number(m.id), chatId: chatId(m.chat), text: m.text }));
const withSecret = (body: string, token = secret): PlatformRequest => ({
  method: "POST",
  headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": token },
  body,
});
const signedJson = (value: unknown) => () => withSecret(JSON.stringify(value));

describeChannelContract({
  name: "telegram",
  setup: async () => {
    const fake = await startFakeTelegram();
    return {
      config: { apiBaseUrl: fake.url },
      env: { TELEGRAM_BOT_TOKEN: fake.token, TELEGRAM_WEBHOOK_SECRET: secret },
      cleanup: () => fake.stop(),
    };
  },
  message: (m) => withSecret(update(m)),
  stored: (m) => ({
    id: `telegram:${Number(m.id)}`,
    conversation: `telegram:${chatId(m.chat)}`,
    text: m.text,
  }),
  forge: (req) => withSecret(req.body, randomBytes(24).toString("base64url")),
  unsign: (req) => ({ ...req, headers: { "content-type": "application/json" } }),
  // Telegram's secret header carries no time: a replay is caught by the update_id dedupe.
  retry: (m) => withSecret(update(m)),
  handshakes: [],
  ignorable: [
    {
      name: "edited message",
      request: signedJson({
        update_id: 1,
        edited_message: { message_id: 1, chat: { id: 1, type: "private" }, date: 1, text: "x" },
      }),
      status: 200,
    },
    {
      name: "callback query",
      request: signedJson({
        update_id: 2,
        callback_query: { id: "1", from: { id: 1, is_bot: false } },
      }),
      status: 200,
    },
    {
      name: "a bot's own message",
      request: signedJson(textUpdate({ updateId: 3, chatId: 5, text: "beep", fromBot: true })),
      status: 200,
    },
    {
      name: "service message (member joined)",
      request: signedJson({
        update_id: 4,
        message: {
          message_id: 4,
          chat: { id: -100, type: "group" },
          date: 1,
          new_chat_members: [{ id: 9, is_bot: false, first_name: "B" }],
        },
      }),
      status: 200,
    },
  ],
  // An update without update_id (unit tests cover non-JSON and wrong types).
  malformed: () => withSecret(JSON.stringify({ message: { text: "no id" } })),
  queuedStatus: 200,
  maxBodyBytes: 1024 * 1024,
});
