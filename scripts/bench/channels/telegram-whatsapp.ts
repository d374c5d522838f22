import { channelsCli } from "../../../tests/support/channels-cli";
import { startClawrun } from "../../../tests/support/clawrun-server";
import { startFakeTelegram, textUpdate } from "../../../tests/support/platforms/telegram";
import {
  messagesPayload,
  startFakeWhatsapp,
  textMessage,
} from "../../../tests/support/platforms/whatsapp";
import { BENCH_SANDBOX, type BenchPlatform, timed } from "./platform";

async function register(server: BenchPlatform["server"], name: string): Promise<void> {
  const reg = await channelsCli(server, ["register", name]);
  if (reg.code !== 0) throw new Error(`register ${name} failed: ${reg.stdout}${reg.stderr}`);
}

export async function telegram(): Promise<BenchPlatform> {
  const fake = await startFakeTelegram({ allowHttpWebhook: true });
  const server = await startClawrun({
    config: { sandbox: BENCH_SANDBOX, channels: { telegram: { apiBaseUrl: fake.url } } },
    env: { TELEGRAM_BOT_TOKEN: fake.token },
  });
  await register(server, "telegram");
  const updateId = (chat: number, i: number) => chat * 1000 + i;
  // A reply names the message it answers; the typing indicator only names the chat.
  const firstCall = (method: string, chat: number, i: number) =>
    fake.calls.find(
      (c) =>
        c.method === method &&
        c.params.chat_id === chat &&
        (method === "sendChatAction" ||
          (c.params.reply_parameters as { message_id?: number } | undefined)?.message_id ===
            updateId(chat, i)),
    )?.at;
  return {
    name: "telegram",
    server,
    deliver: (chat, i) =>
      timed(() =>
        fake.deliver(textUpdate({ updateId: updateId(chat, i), chatId: chat, text: `m${i}` })),
      ),
    indicatorAt: (chat, i) => firstCall("sendChatAction", chat, i),
    replyAt: (chat, i) => firstCall("sendMessage", chat, i),
    stop: async () => {
      await server.stop();
      await fake.stop();
    },
  };
}

export async function whatsapp(): Promise<BenchPlatform> {
  const fake = await startFakeWhatsapp();
  const server = await startClawrun({
    config: {
      sandbox: BENCH_SANDBOX,
      channels: { whatsapp: { apiBaseUrl: fake.url, apiVersion: fake.version, appId: fake.appId } },
    },
    env: {
      WHATSAPP_ACCESS_TOKEN: fake.accessToken,
      WHATSAPP_APP_SECRET: fake.appSecret,
      WHATSAPP_VERIFY_TOKEN: "bench-verify-token-0123456789",
    },
  });
  await register(server, "whatsapp");
  const waId = (chat: number) => `49151${String(chat).padStart(8, "0")}`;
  const wamid = (chat: number, i: number) => `wamid.bench-${chat}-${i}`;
  return {
    name: "whatsapp",
    server,
    deliver: (chat, i) =>
      timed(() =>
        fake.deliver(
          messagesPayload("106540352242922", [textMessage(waId(chat), wamid(chat, i), `m${i}`)]),
        ),
      ),
    // The typing indicator is sent with the read receipt of the message.
    indicatorAt: (chat, i) =>
      fake.calls.find((c) => c.params.status === "read" && c.params.message_id === wamid(chat, i))
        ?.at,
    replyAt: (chat, i) =>
      fake.calls.find(
        (c) =>
          c.params.type === "text" &&
          c.params.to === waId(chat) &&
          (c.params.text as { body: string }).body.startsWith(`echo: m${i} (`),
      )?.at,
    stop: async () => {
      await server.stop();
      await fake.stop();
    },
  };
}
