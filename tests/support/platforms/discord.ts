import { generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import type {
  APIChatInputApplicationCommandInteraction,
  APIPingInteraction,
  RESTRateLimit,
} from "discord-api-types/v10";
import {
  APPLICATION_ID,
  type AskSpec,
  askInteraction,
  pingInteraction,
  snowflake,
} from "./discord-interactions";
import { type FakeReply, type RecordedCall, startRecordingServer } from "./http";

export { APPLICATION_ID, type AskSpec, askInteraction } from "./discord-interactions";

/**
 * A stand-in for Discord, both directions, built from Discord's documented formats
 * (docs/channels/discord.md lists them) and typed with discord-api-types:
 * - its HTTP API at `<url>/api/v10`: interaction webhooks (edit @original, follow-ups) that
 *   work only for tokens it issued and only for 15 minutes, channel messages and the
 *   application/commands endpoints behind `Authorization: Bot <token>`, JSON errors
 *   `{ code, message }`, 429 with `retry_after`; setting the interactions endpoint URL
 *   checks it like Discord does (a signed PING must get PONG, a forged one 401);
 * - its interaction sender: interactions signed with the application's Ed25519 key.
 * Every API call is recorded; each interaction keeps what ClawRun answered and every message
 * posted for it.
 */

const TOKEN_TTL_MS = 15 * 60_000;
const MAX_CONTENT = 2_000;

export interface IssuedInteraction {
  id: string;
  token: string;
  channelId: string;
  userId: string;
  sentAt: number;
  /** ClawRun's HTTP answer to the interaction (type 5 = deferred, "thinking…"). */
  response: { status: number; body: unknown; at: number } | null;
  /** The original response's content once edited (null while "thinking…"). */
  original: { content: string; at: number } | null;
  followUps: { content: string; flags: number; at: number }[];
}

export interface FakeDiscord {
  apiBaseUrl: string;
  /** `channels.discord.publicKey`. */
  publicKeyHex: string;
  botToken: string;
  calls: RecordedCall[];
  interactions: IssuedInteraction[];
  /** Bot messages posted with the bot token (after a token expired). */
  channelMessages: { channelId: string; content: string; at: number }[];
  commands: { id: string; name: string; body: unknown }[];
  application: { interactions_endpoint_url: string | null };
  /** Channels the bot may post in with its token (others answer 403 Missing Access). */
  botChannels: Set<string>;
  /** The next `count` calls answer 429 with `retry_after` = `seconds`. */
  rateLimit(count: number, seconds: number): void;
  /** Moves the fake's clock (interaction tokens expire 15 minutes after they were issued). */
  advance(ms: number): void;
  /** A signed /ask (or any) interaction as Discord sends it; registered so its token works. */
  ask(m: AskSpec): APIChatInputApplicationCommandInteraction;
  ping(): APIPingInteraction;
  signed(body: string, o?: { timestamp?: number; key?: KeyObject }): Record<string, string>;
  /** POSTs an interaction to ClawRun and records its answer. */
  deliver(
    url: string,
    interaction: { id: string },
    o?: { timestamp?: number },
  ): Promise<{ status: number; body: unknown; ms: number }>;
  stop(): Promise<void>;
}

export async function startFakeDiscord(): Promise<FakeDiscord> {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const publicKeyHex = Buffer.from(
    publicKey.export({ format: "jwk" }).x as string,
    "base64url",
  ).toString("hex");
  const botToken = `fake.${randomBytes(24).toString("base64url")}`;
  const interactions: IssuedInteraction[] = [];
  const channelMessages: FakeDiscord["channelMessages"] = [];
  const commands: FakeDiscord["commands"] = [];
  const application = { interactions_endpoint_url: null as string | null };
  const botChannels = new Set<string>();
  let offset = 0;
  const now = () => Date.now() + offset;
  let limited = 0;
  let limitSeconds = 1;

  const signed: FakeDiscord["signed"] = (body, o = {}) => {
    const timestamp = String(Math.floor((o.timestamp ?? Date.now()) / 1000));
    const signature = sign(null, Buffer.from(timestamp + body), o.key ?? privateKey).toString(
      "hex",
    );
    return {
      "content-type": "application/json",
      "x-signature-ed25519": signature,
      "x-signature-timestamp": timestamp,
    };
  };

  const server = await startRecordingServer(async (call) => {
    if (limited > 0) {
      limited -= 1;
      const body: RESTRateLimit = {
        message: "You are being rate limited.",
        retry_after: limitSeconds,
        global: false,
      };
      return {
        status: 429,
        body,
        headers: { "retry-after": String(Math.ceil(limitSeconds)), "x-ratelimit-scope": "user" },
      };
    }
    const path = call.path.replace(/^\/api\/v10/, "").split("?")[0] ?? "";
    const hook = /^\/webhooks\/(\d+)\/([^/]+)(\/messages\/@original)?$/.exec(path);
    if (hook)
      return webhook(
        call,
        hook[1] as string,
        decodeURIComponent(hook[2] as string),
        Boolean(hook[3]),
      );
    if (call.headers.authorization !== `Bot ${botToken}`) return error(401, 0, "401: Unauthorized");
    const channel = /^\/channels\/(\d+)\/messages$/.exec(path);
    if (channel && call.method === "POST") return channelMessage(call, channel[1] as string);
    if (path === "/applications/@me" && call.method === "GET") return { status: 200, body: app() };
    if (path === "/applications/@me" && call.method === "PATCH") return editApp(call);
    if (path === `/applications/${APPLICATION_ID}/commands`) {
      if (call.method === "GET")
        return {
          status: 200,
          body: commands.map((c) => ({
            ...(c.body as object),
            id: c.id,
            application_id: APPLICATION_ID,
          })),
        };
      if (call.method === "POST") return upsertCommand(call);
    }
    return error(404, 0, "404: Not Found");
  });

  function webhook(call: RecordedCall, appId: string, token: string, original: boolean): FakeReply {
    const i = interactions.find((x) => x.token === token);
    if (appId !== APPLICATION_ID || !i || now() - i.sentAt > TOKEN_TTL_MS)
      return error(404, 10015, "Unknown Webhook");
    const body = (call.body ?? {}) as { content?: unknown; flags?: unknown };
    const content = typeof body.content === "string" ? body.content : "";
    if (content.trim() === "") return error(400, 50006, "Cannot send an empty message");
    if (content.length > MAX_CONTENT)
      return invalidForm(
        "content",
        "BASE_TYPE_MAX_LENGTH",
        `Must be ${MAX_CONTENT} or fewer in length.`,
      );
    const message = {
      id: snowflake(),
      channel_id: i.channelId,
      content,
      type: 20,
      webhook_id: APPLICATION_ID,
    };
    if (original && call.method === "PATCH") {
      if (!i.response) return error(404, 10008, "Unknown Message");
      i.original = { content, at: Date.now() };
      return { status: 200, body: message };
    }
    if (!original && call.method === "POST") {
      i.followUps.push({
        content,
        flags: typeof body.flags === "number" ? body.flags : 0,
        at: Date.now(),
      });
      return call.path.includes("wait=true") ? { status: 200, body: message } : { status: 204 };
    }
    return error(405, 0, "405: Method Not Allowed");
  }

  function channelMessage(call: RecordedCall, channelId: string): FakeReply {
    if (!botChannels.has(channelId)) return error(403, 50001, "Missing Access");
    const content = (call.body as { content?: unknown } | null)?.content;
    if (typeof content !== "string" || content.trim() === "")
      return error(400, 50006, "Cannot send an empty message");
    if (content.length > MAX_CONTENT)
      return invalidForm(
        "content",
        "BASE_TYPE_MAX_LENGTH",
        `Must be ${MAX_CONTENT} or fewer in length.`,
      );
    channelMessages.push({ channelId, content, at: Date.now() });
    return { status: 200, body: { id: snowflake(), channel_id: channelId, content, type: 0 } };
  }

  async function editApp(call: RecordedCall): Promise<FakeReply> {
    const url = (call.body as { interactions_endpoint_url?: unknown } | null)
      ?.interactions_endpoint_url;
    if (typeof url === "string") {
      // Discord's own check of a new endpoint: a valid PING must get PONG, a forged one 401.
      const verified = await probe(url).catch(() => false);
      if (!verified)
        return invalidForm(
          "interactions_endpoint_url",
          "APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID",
          "The specified interactions endpoint url could not be verified.",
        );
      application.interactions_endpoint_url = url;
    }
    return { status: 200, body: app() };
  }

  async function probe(url: string): Promise<boolean> {
    const body = JSON.stringify(pingInteraction());
    const good = await fetch(url, { method: "POST", headers: signed(body), body });
    const pong = (await good.json().catch(() => null)) as { type?: number } | null;
    const { privateKey: other } = generateKeyPairSync("ed25519");
    const bad = await fetch(url, { method: "POST", headers: signed(body, { key: other }), body });
    return good.status === 200 && pong?.type === 1 && bad.status === 401;
  }

  function upsertCommand(call: RecordedCall): FakeReply {
    const body = call.body as { name?: unknown; description?: unknown } | null;
    if (typeof body?.name !== "string" || !/^[-_\p{L}\p{N}]{1,32}$/u.test(body.name))
      return invalidForm("name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid");
    if (
      typeof body.description !== "string" ||
      body.description.length < 1 ||
      body.description.length > 100
    )
      return invalidForm(
        "description",
        "BASE_TYPE_BAD_LENGTH",
        "Must be between 1 and 100 in length.",
      );
    const existing = commands.find((c) => c.name === body.name);
    if (existing) {
      existing.body = body;
      return { status: 200, body: { ...body, id: existing.id, application_id: APPLICATION_ID } };
    }
    const created = { id: snowflake(), name: body.name, body };
    commands.push(created);
    return { status: 201, body: { ...body, id: created.id, application_id: APPLICATION_ID } };
  }

  function app() {
    return {
      id: APPLICATION_ID,
      name: "ClawRun Test",
      verify_key: publicKeyHex,
      bot_public: true,
      bot_require_code_grant: false,
      description: "",
      flags: 0,
      interactions_endpoint_url: application.interactions_endpoint_url,
    };
  }

  const byId = new Map<string, unknown>();

  const fake: FakeDiscord = {
    apiBaseUrl: `${server.url}/api/v10`,
    publicKeyHex,
    botToken,
    calls: server.calls,
    interactions,
    channelMessages,
    commands,
    application,
    botChannels,
    rateLimit(count, seconds) {
      limited = count;
      limitSeconds = seconds;
    },
    advance(ms) {
      offset += ms;
    },
    ask(m) {
      const interaction = askInteraction(m);
      byId.set(interaction.id, interaction);
      interactions.push({
        id: interaction.id,
        token: interaction.token,
        channelId: m.channelId,
        userId: m.userId,
        sentAt: now(),
        response: null,
        original: null,
        followUps: [],
      });
      return interaction;
    },
    ping() {
      const p = pingInteraction();
      byId.set(p.id, p);
      return p;
    },
    signed,
    async deliver(url, interaction, o = {}) {
      const body = JSON.stringify(byId.get(interaction.id) ?? interaction);
      const t0 = performance.now();
      const res = await fetch(url, { method: "POST", headers: signed(body, o), body });
      const ms = performance.now() - t0;
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON
      }
      const issued = interactions.find((x) => x.id === interaction.id);
      if (issued && !issued.response)
        issued.response = { status: res.status, body: parsed, at: Date.now() };
      return { status: res.status, body: parsed, ms };
    },
    stop: server.stop,
  };
  return fake;
}

function error(status: number, code: number, message: string): FakeReply {
  return { status, body: { code, message } };
}

function invalidForm(field: string, code: string, message: string): FakeReply {
  return {
    status: 400,
    body: {
      code: 50035,
      message: "Invalid Form Body",
      errors: { [field]: { _errors: [{ code, message }] } },
    },
  };
}
