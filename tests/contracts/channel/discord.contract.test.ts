import { generateKeyPairSync } from "node:crypto";
import { InteractionType } from "discord-api-types/v10";
import {
  APPLICATION_ID,
  askInteraction,
  type FakeDiscord,
  startFakeDiscord,
} from "../../support/platforms/discord";
import {
  describeChannelContract,
  type MessageSpec,
  type PlatformRequest,
} from "./channel-contract";

let discord: FakeDiscord | undefined;
const USER = "700000000000000001";
const other = generateKeyPairSync("ed25519").privateKey;

/** Each contract chat is a Discord channel of its own. */
const channelId = (chat: string) => `9000000000000000${chat.replace(/\D/g, "").padStart(3, "0")}`;
/** One interaction per message id: a retry is the same interaction (same id and token). */
const asks = new Map<string, ReturnType<typeof askInteraction>>();
const ask = (m: MessageSpec) => {
  const existing = asks.get(m.id);
  if (existing) return existing;
  const i = askInteraction({ id: m.id, channelId: channelId(m.chat), userId: USER, text: m.text });
  asks.set(m.id, i);
  return i;
};
const signed = (payload: unknown, o: { at?: number; key?: typeof other } = {}): PlatformRequest => {
  if (!discord) throw new Error("fake Discord not started");
  const body = typeof payload === "string" ? payload : JSON.stringify(payload);
  return {
    method: "POST",
    headers: discord.signed(body, { timestamp: o.at ?? Date.now(), key: o.key }),
    body,
  };
};

describeChannelContract({
  name: "discord",
  setup: async () => {
    discord = await startFakeDiscord();
    return {
      config: {
        apiBaseUrl: discord.apiBaseUrl,
        applicationId: APPLICATION_ID,
        publicKey: discord.publicKeyHex,
      },
      env: { DISCORD_BOT_TOKEN: discord.botToken },
      cleanup: () => discord?.stop() ?? Promise.resolve(),
    };
  },
  message: (m) => signed(ask(m), { at: m.now }),
  stored: (m) => ({ id: m.id, conversation: `discord:${channelId(m.chat)}:${USER}`, text: m.text }),
  forge: (req) => signed(req.body, { key: other }),
  unsign: (req) => {
    const { "x-signature-ed25519": _s, "x-signature-timestamp": _t, ...rest } = req.headers;
    return { ...req, headers: rest };
  },
  stale: (m, ageMs) => signed(ask(m), { at: m.now - ageMs }),
  // Discord does not retry interactions, but a resent one must not be delivered twice.
  retry: (m) => signed(ask(m), { at: m.now }),
  handshakes: [
    {
      name: "PING",
      request: (now) =>
        signed(
          {
            id: "1",
            application_id: APPLICATION_ID,
            type: InteractionType.Ping,
            token: "t",
            version: 1,
          },
          { at: now },
        ),
      status: 200,
      body: { type: 1 },
    },
  ],
  ignorable: [
    {
      name: "another slash command",
      request: (now) =>
        signed(askInteraction({ channelId: "1", userId: USER, text: "x", command: "help" }), {
          at: now,
        }),
      status: 200,
    },
    {
      name: "autocomplete",
      request: (now) =>
        signed(
          {
            ...askInteraction({ channelId: "1", userId: USER, text: "x" }),
            type: InteractionType.ApplicationCommandAutocomplete,
          },
          { at: now },
        ),
      status: 200,
    },
  ],
  malformed: (now) => signed("{not json", { at: now }),
  queuedStatus: 200,
  queuedBody: { type: 5 },
  maxBodyBytes: 1024 * 1024,
});
