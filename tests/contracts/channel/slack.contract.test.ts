import {
  directMessage,
  edited,
  envelope,
  type FakeSlack,
  ownMessage,
  reaction,
  startFakeSlack,
} from "../../support/platforms/slack";
import {
  describeChannelContract,
  type MessageSpec,
  type PlatformRequest,
} from "./channel-contract";

const token = "xoxb-contract-token";
const signingSecret = "fedcba9876543210fedcba9876543210";
let slack: FakeSlack | undefined;

/** Each contract chat is a DM channel of its own. */
const dmChannel = (chat: string) => `D0${chat.replace(/\W/g, "").toUpperCase()}`;
const dmPayload = (m: MessageSpec) =>
  envelope(
    m.id,
    directMessage({
      channel: dmChannel(m.chat),
      user: "U0PERSON",
      text: m.text,
      ts: `${Math.floor(m.now / 1000)}.000100`,
    }),
  );
const signed = (
  payload: unknown,
  o: { at?: number; retryNum?: number; secret?: string } = {},
): PlatformRequest => {
  if (!slack) throw new Error("fake Slack not started");
  const r = slack.signedRequest(payload, {
    timestamp: o.at ?? Date.now(),
    retryNum: o.retryNum,
    secret: o.secret,
  });
  return { method: "POST", headers: r.headers, body: r.body };
};

describeChannelContract({
  name: "slack",
  setup: async () => {
    slack = await startFakeSlack({ token, signingSecret });
    return {
      config: { apiBaseUrl: slack.apiBaseUrl },
      env: { SLACK_BOT_TOKEN: token, SLACK_SIGNING_SECRET: signingSecret },
      cleanup: () => slack?.stop() ?? Promise.resolve(),
    };
  },
  message: (m) => signed(dmPayload(m), { at: m.now }),
  stored: (m) => ({ id: m.id, conversation: `slack:${dmChannel(m.chat)}`, text: m.text }),
  forge: (req) => signed(JSON.parse(req.body), { secret: "0".repeat(32) }),
  unsign: (req) => {
    const { "x-slack-signature": _s, "x-slack-request-timestamp": _t, ...rest } = req.headers;
    return { ...req, headers: rest };
  },
  stale: (m, ageMs) => signed(dmPayload(m), { at: m.now - ageMs }),
  // Slack retries an event it got no 2xx for, with X-Slack-Retry-Num and a fresh signature.
  retry: (m) => signed(dmPayload(m), { at: m.now, retryNum: 1 }),
  handshakes: [
    {
      name: "url_verification",
      request: (now) =>
        signed(
          {
            token: "legacy",
            challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
            type: "url_verification",
          },
          { at: now },
        ),
      status: 200,
      body: { challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" },
    },
  ],
  ignorable: [
    {
      name: "the app's own message",
      request: (now) =>
        signed(envelope(`EvOwn${now}`, ownMessage({ channel: "D0X", text: "echo", ts: "1.1" })), {
          at: now,
        }),
      status: 200,
    },
    {
      name: "an edit",
      request: (now) =>
        signed(envelope(`EvEdit${now}`, edited({ channel: "D0X", ts: "1.1", text: "changed" })), {
          at: now,
        }),
      status: 200,
    },
    {
      name: "a reaction",
      request: (now) =>
        signed(envelope(`EvReact${now}`, reaction({ channel: "D0X", ts: "1.1" })), { at: now }),
      status: 200,
    },
    {
      name: "a channel message without a mention",
      request: (now) =>
        signed(
          envelope(`EvChan${now}`, {
            ...directMessage({ channel: "C0GENERAL", user: "U0PERSON", text: "hi all", ts: "1.1" }),
            channel_type: "channel",
          }),
          { at: now },
        ),
      status: 200,
    },
    {
      name: "app_rate_limited",
      request: (now) =>
        signed(
          {
            token: "legacy",
            type: "app_rate_limited",
            team_id: "T0CLAWRUN",
            minute_rate_limited: 1518467820,
            api_app_id: "A0CLAWRUN",
          },
          { at: now },
        ),
      status: 200,
    },
  ],
  malformed: (now) => signed("{not json", { at: now }),
  queuedStatus: 200,
  queuedBody: { ok: true },
  maxBodyBytes: 1024 * 1024,
});
