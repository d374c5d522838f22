import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { channelDeps } from "../../../../tests/support/platforms/channel-deps";
import { sendError } from "../../../../tests/support/platforms/send-error";
import {
  type FakeWhatsapp,
  messagesPayload,
  startFakeWhatsapp,
  textMessage,
} from "../../../../tests/support/platforms/whatsapp";
import type { Channel, ReplyTarget } from "../types";
import { whatsappChannel } from ".";
import { GraphApi } from "./graph-api";
import { hubSignature } from "./signature";
import { WhatsappChannel } from "./whatsapp-channel";

let fake: FakeWhatsapp;
let deps: ReturnType<typeof channelDeps<Parameters<typeof whatsappChannel.create>[1]["env"]>>;
let channel: Channel;
const PN = "106540352242922";

const config = (over: Record<string, unknown> = {}) =>
  whatsappChannel.configSchema.parse({ apiBaseUrl: fake.url, apiVersion: fake.version, ...over });
const target = (id: string, to = "4915100000001"): ReplyTarget => ({
  messageId: `whatsapp:wamid.${id}`,
  conversation: `whatsapp:${to}`,
  meta: { phoneNumberId: PN, to },
});
const signal = () => AbortSignal.timeout(20_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const bodiesTo = (to: string) =>
  fake
    .sentTexts()
    .filter((t) => t.to === to)
    .map((t) => t.body);

beforeAll(async () => {
  fake = await startFakeWhatsapp();
  deps = channelDeps("whatsapp", {
    WHATSAPP_ACCESS_TOKEN: fake.accessToken,
    WHATSAPP_APP_SECRET: fake.appSecret,
    WHATSAPP_VERIFY_TOKEN: "verify-token-for-the-tests",
  });
  channel = whatsappChannel.create(config(), deps.deps);
});
afterAll(async () => {
  await fake?.stop();
  await deps?.close();
});
afterEach(() => {
  fake.calls.length = 0;
});

describe("WhatsApp replies", () => {
  it("splits at 4,096 characters on word boundaries and sends from the business number the person wrote to", async () => {
    const words = Array.from({ length: 1500 }, (_, i) => `w${i}`).join(" ");
    const result = await channel.send(target("1", "4915100000001"), words, signal());
    const sent = fake.sentTexts();
    expect(result).toEqual({
      sent: true,
      detail: `sent ${sent.length} messages to WhatsApp user 4915100000001`,
    });
    expect(sent.length).toBe(2);
    for (const s of sent) {
      expect(s.phoneNumberId).toBe(PN);
      expect(s.body.length).toBeLessThanOrEqual(4096);
    }
    expect(sent.map((s) => s.body).join(" ")).toBe(words);
  });

  it("waits out the pair rate limit (131056) and keeps order", async () => {
    fake.failSends({
      status: 400,
      code: 131056,
      message: "(Business Account, Consumer Account) pair rate limit hit",
      retryAfterS: 1,
    });
    await channel.send(target("2", "4915100000002"), "after the pause", signal());
    expect(bodiesTo("4915100000002")).toEqual(["after the pause", "after the pause"]);
  });

  it("throws a long throttle to the inbox with its wait and resumes after the parts already sent", async () => {
    const reply = ["a", "b", "c"].map((ch) => ch.repeat(4000)).join("\n");
    fake.failSends({ status: 400, code: 80007, message: "Rate limit issues" }, { after: 1 });
    const err = await sendError(channel.send(target("3", "4915100000003"), reply, signal()));
    expect(err).toMatchObject({ retryAfterMs: 60_000, permanent: false });
    await channel.send(target("3", "4915100000003"), reply, signal());
    expect(bodiesTo("4915100000003").map((b) => `${b[0]}${b.length}`)).toEqual([
      "a4000",
      "b4000",
      "b4000",
      "c4000",
    ]);
  });

  it.each([
    [401, 190, "Access token has expired", true],
    [400, 131047, "Re-engagement message", true],
    [400, 131026, "Message undeliverable", true],
    [400, 100, "Invalid parameter", true],
    [500, 131000, "Something went wrong", false],
    [503, 131016, "Service unavailable", false],
  ])(
    "classifies HTTP %i code %i (%s) as permanent=%s",
    async (status, code, message, permanent) => {
      fake.failSends({ status, code, message });
      const err = await sendError(channel.send(target(`p${code}`), "x", signal()));
      expect(err).toMatchObject({ permanent, retryAfterMs: null });
      expect(err.message).toContain(`(#${code})`);
    },
  );

  it("sends nothing for an empty reply and refuses foreign meta permanently", async () => {
    expect((await channel.send(target("e"), "\n\n", signal())).sent).toBe(false);
    expect(fake.sentTexts()).toEqual([]);
    const err = await sendError(
      channel.send(
        { messageId: "whatsapp:x", conversation: "c", meta: { chatId: 1 } },
        "x",
        signal(),
      ),
    );
    expect(err.permanent).toBe(true);
  });
});

describe("WhatsApp typing indicator while the agent wakes", () => {
  it("shows typing on the newest waiting message of each sender and repeats it until the reply", async () => {
    const fast = new WhatsappChannel({
      api: new GraphApi({
        baseUrl: fake.url,
        version: fake.version,
        accessToken: fake.accessToken,
      }),
      appSecret: fake.appSecret,
      verifyToken: "verify-token-for-the-tests",
      webhookUrl: "https://clawrun.example/api/webhooks/whatsapp",
      attachments: "describe",
      kv: deps.deps.kv,
      clock: Date.now,
      logger: deps.deps.logger,
      typingEveryMs: 50, // 20 s in production; short so the test is quick
    });
    const first = fast.whileWaking?.(target("t1", "4915100000009"));
    const second = fast.whileWaking?.(target("t2", "4915100000009"));
    await sleep(300);
    const shown = fake.typing().map((t) => t.messageId);
    expect(shown[0]).toBe("wamid.t1"); // at once, for the message that started it
    expect(shown.length).toBeGreaterThanOrEqual(3);
    expect(shown.at(-1)).toBe("wamid.t2"); // repeats use the newest waiting message
    await fast.send(target("t1", "4915100000009"), "one", signal());
    await fast.send(target("t2", "4915100000009"), "two", signal());
    const count = fake.typing().length;
    await sleep(200);
    expect(fake.typing().length).toBe(count);
    await first?.stop();
    await second?.stop();
  });
});

describe("WhatsApp webhook registration and status", () => {
  it("without appId: nothing to ask, and register says what to set", async () => {
    expect((await channel.status(signal())).webhookRegistered).toBeNull();
    expect(await channel.register?.(signal())).toMatchObject({
      ok: false,
      detail: expect.stringContaining("channels.whatsapp.appId"),
    });
  });

  it("with appId: subscribes the app (Meta verifies the callback), subscribes the WABA, and reports it", async () => {
    // Meta calls the callback during registration (the success path runs end to end against the real server).
    const ch = whatsappChannel.create(
      config({ appId: fake.appId, businessAccountId: "102290129340398" }),
      {
        ...deps.deps,
        publicUrl: "http://127.0.0.1:9", // nothing listens: Meta's verification fails
      },
    );
    const refused = await ch.register?.(signal());
    expect(refused?.ok).toBe(false);
    expect(refused?.detail).toContain("(#2200) Callback verification failed");
    expect(fake.subscription).toBeNull();
    expect((await ch.status(signal())).webhookRegistered).toBe(false);
  });
});

describe("WhatsApp attachments in refuse mode", () => {
  it("stores the text of a batch and tells the sender of the photo, quoting it, after answering", async () => {
    const refusing = whatsappChannel.create(config({ attachments: "refuse" }), deps.deps);
    const raw = JSON.stringify(
      messagesPayload(PN, [
        {
          from: "4915100000500",
          id: "wamid.photo",
          type: "image",
          image: { mime_type: "image/jpeg", id: "9" },
        },
        textMessage("4915100000500", "wamid.text", "and some text"),
      ]),
    );
    const inbound = await refusing.handle({
      method: "POST",
      url: new URL("https://clawrun.example/api/webhooks/whatsapp"),
      headers: new Headers({ "x-hub-signature-256": hubSignature(fake.appSecret, raw) }),
      rawBody: Buffer.from(raw),
      now: Date.now(),
    });
    expect(inbound.kind).toBe("batch");
    if (inbound.kind !== "batch") return;
    expect(inbound.messages.map((m) => m.id)).toEqual(["whatsapp:wamid.text"]);
    expect(fake.sentTexts()).toEqual([]); // nothing before the webhook is answered
    await inbound.after?.();
    expect(fake.sentTexts()).toEqual([
      {
        to: "4915100000500",
        phoneNumberId: PN,
        context: { message_id: "wamid.photo" },
        body: "Sorry, the agent can only read text messages, so it did not get this photo. Please send it as text.",
      },
    ]);
    // Meta redelivers the same webhook: the sender is not told twice.
    await inbound.after?.();
    expect(fake.sentTexts()).toHaveLength(1);
  });
});
