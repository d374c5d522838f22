import { describe, expect, it } from "vitest";
import {
  BOT_USER_ID,
  directMessage,
  edited,
  envelope,
  fileShare,
  mention,
  ownMessage,
  reaction,
} from "../../../../tests/support/platforms/slack";
import { ClawrunError } from "../../../protocol/clawrun-error";
import { interpretSlackPayload } from "./interpret";

const dm = (text: string, extra: { threadTs?: string } = {}) =>
  envelope(
    "Ev01",
    directMessage({ channel: "D0DM", user: "U0PERSON", text, ts: "1700000000.000100", ...extra }),
  );

describe("interpretSlackPayload: messages for the agent", () => {
  it("a direct message is answered in the DM itself (no thread)", () => {
    expect(interpretSlackPayload(dm("hello there"), "describe")).toEqual({
      kind: "message",
      id: "Ev01",
      conversation: "slack:D0DM",
      text: "hello there",
      meta: { channel: "D0DM", threadTs: null },
    });
  });

  it("a direct message inside a thread stays in that thread", () => {
    const d = interpretSlackPayload(dm("and then?", { threadTs: "1690000000.000001" }), "describe");
    expect(d).toMatchObject({
      conversation: "slack:D0DM:1690000000.000001",
      meta: { threadTs: "1690000000.000001" },
    });
  });

  it("a mention in a channel starts a thread on the mentioning message, without the mention", () => {
    const e = envelope(
      "Ev02",
      mention({
        channel: "C0GENERAL",
        user: "U0PERSON",
        text: "what's up?",
        ts: "1700000000.000200",
      }),
    );
    expect(interpretSlackPayload(e, "describe")).toEqual({
      kind: "message",
      id: "Ev02",
      conversation: "slack:C0GENERAL:1700000000.000200",
      text: "what's up?",
      meta: { channel: "C0GENERAL", threadTs: "1700000000.000200" },
    });
  });

  it("a mention inside a thread continues that thread", () => {
    const e = envelope(
      "Ev03",
      mention({
        channel: "C0GENERAL",
        user: "U0PERSON",
        text: "more",
        ts: "1700000000.000300",
        threadTs: "1700000000.000200",
      }),
    );
    expect(interpretSlackPayload(e, "describe")).toMatchObject({
      conversation: "slack:C0GENERAL:1700000000.000200",
    });
  });

  it("undoes Slack's &amp; &lt; &gt; escapes", () => {
    expect(interpretSlackPayload(dm("a &lt; b &amp;&amp; c &gt; d"), "describe")).toMatchObject({
      text: "a < b && c > d",
    });
  });

  it("describes files to the agent when configured to describe", () => {
    const e = envelope(
      "Ev04",
      fileShare({
        channel: "D0DM",
        user: "U0PERSON",
        text: "look",
        ts: "1.2",
        file: { name: "cat.png", mimetype: "image/png", size: 2048 },
      }),
    );
    expect(interpretSlackPayload(e, "describe")).toMatchObject({
      kind: "message",
      text: 'look\n[attachment: "cat.png" (image/png, 2.0 KB); only this description was passed on]',
    });
  });

  it("refuses files when configured to refuse, naming them for the sender", () => {
    const e = envelope(
      "Ev05",
      fileShare({
        channel: "D0DM",
        user: "U0PERSON",
        text: "",
        ts: "1.2",
        file: { name: "voice.m4a", mimetype: "audio/mp4", size: 10 },
      }),
    );
    expect(interpretSlackPayload(e, "refuse")).toEqual({
      kind: "refuse",
      reason: expect.stringContaining("files"),
      meta: { channel: "D0DM", threadTs: null },
      attachments: [{ name: "voice.m4a", type: "audio/mp4", bytes: 10 }],
    });
  });
});

describe("interpretSlackPayload: the URL verification handshake", () => {
  it("returns the challenge", () => {
    expect(
      interpretSlackPayload(
        {
          token: "t",
          challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
          type: "url_verification",
        },
        "describe",
      ),
    ).toEqual({
      kind: "challenge",
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
    });
  });
});

describe("interpretSlackPayload: ignored (answered 200, nothing stored)", () => {
  const ignored = (payload: unknown) => interpretSlackPayload(payload, "describe").kind;
  it.each([
    {
      name: "the app's own message",
      payload: envelope("Ev10", ownMessage({ channel: "D0DM", text: "echo", ts: "1.1" })),
    },
    {
      name: "an edit (message_changed)",
      payload: envelope("Ev11", edited({ channel: "D0DM", ts: "1.1", text: "fixed" })),
    },
    { name: "a reaction", payload: envelope("Ev12", reaction({ channel: "D0DM", ts: "1.1" })) },
    {
      name: "a channel message that does not mention the app",
      payload: envelope("Ev13", {
        ...directMessage({ channel: "C0GENERAL", user: "U0PERSON", text: "hi all", ts: "1.1" }),
        channel_type: "channel",
      }),
    },
    {
      name: "a mention inside a DM (its message event carries it)",
      payload: envelope(
        "Ev14",
        mention({ channel: "D0DM", user: "U0PERSON", text: "hi", ts: "1.1" }),
      ),
    },
    { name: "an empty message", payload: dm("   ") },
    {
      name: "a mention with nothing but the mention",
      payload: envelope("Ev15", {
        ...mention({ channel: "C0G", user: "U0P", text: "", ts: "1.1" }),
        text: `<@${BOT_USER_ID}>`,
      }),
    },
    {
      name: "app_rate_limited",
      payload: {
        token: "t",
        type: "app_rate_limited",
        team_id: "T0",
        minute_rate_limited: 1518467820,
        api_app_id: "A0",
      },
    },
  ])("$name", ({ payload }) => {
    expect(ignored(payload)).toBe("ignore");
  });
});

describe("interpretSlackPayload: malformed payloads are a 400 naming the key", () => {
  it.each([
    { name: "no type", payload: { event_id: "Ev1" }, key: "type" },
    {
      name: "a challenge without its value",
      payload: { type: "url_verification" },
      key: "challenge",
    },
    {
      name: "an event callback without event_id",
      payload: { ...dm("x"), event_id: undefined },
      key: "event_id",
    },
    {
      name: "an event callback without the event",
      payload: { ...dm("x"), event: undefined },
      key: "event",
    },
    {
      name: "a message event without its channel",
      payload: { ...dm("x"), event: { type: "message", user: "U1", text: "x", ts: "1.1" } },
      key: "event.channel",
    },
    {
      name: "a message event without its ts",
      payload: { ...dm("x"), event: { type: "message", user: "U1", text: "x", channel: "D1" } },
      key: "event.ts",
    },
    { name: "JSON that is not an object", payload: [1, 2], key: "body" },
  ])("$name", ({ payload, key }) => {
    let caught: unknown;
    try {
      interpretSlackPayload(payload, "describe");
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ClawrunError);
    expect((caught as ClawrunError).status).toBe(400);
    expect((caught as Error).message.startsWith(`${key}: `)).toBe(true);
  });
});
