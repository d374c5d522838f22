import { InteractionType } from "discord-api-types/v10";
import { describe, expect, it } from "vitest";
import { APPLICATION_ID, askInteraction } from "../../../../tests/support/platforms/discord";
import type { AttachmentMode } from "../attachments";
import { ChannelRequestError } from "../types";
import { interactionSchema } from "./interaction";
import { EPHEMERAL, INTERACTION_TOKEN_TTL_MS, interpretInteraction } from "./interpret";

const now = 1_700_000_000_000;
const opts: { applicationId: string; attachments: AttachmentMode; now: number } = {
  applicationId: APPLICATION_ID,
  attachments: "describe",
  now,
};
const interpret = (i: unknown, o: Partial<typeof opts> = {}) =>
  interpretInteraction(interactionSchema.parse(i), { ...opts, ...o });

describe("interpretInteraction", () => {
  it("answers PING with PONG", () => {
    const ping = {
      id: "1",
      application_id: APPLICATION_ID,
      type: InteractionType.Ping,
      token: "t",
      version: 1,
    };
    expect(interpret(ping)).toEqual({ kind: "pong" });
  });

  it("turns /ask in a server into a message for the agent, per person and channel", () => {
    const i = askInteraction({ id: "555", channelId: "42", userId: "77", text: "  hello agent " });
    expect(interpret(i)).toEqual({
      kind: "message",
      id: "555",
      conversation: "discord:42:77",
      text: "hello agent",
      meta: { token: i.token, channelId: "42", expiresAt: now + INTERACTION_TOKEN_TTL_MS },
    });
  });

  it("reads the sender from `user` in a DM", () => {
    const i = askInteraction({ channelId: "43", userId: "78", text: "dm", inGuild: false });
    expect(interpret(i)).toMatchObject({ conversation: "discord:43:78" });
  });

  it("describes an attached file to the agent", () => {
    const i = askInteraction({
      channelId: "1",
      userId: "2",
      text: "see",
      file: { filename: "a.pdf", content_type: "application/pdf", size: 100 },
    });
    expect(interpret(i)).toMatchObject({
      text: 'see\n[attachment: "a.pdf" (application/pdf, 100 B); only this description was passed on]',
    });
  });

  it("refuses an attached file when configured to, privately, storing nothing", () => {
    const i = askInteraction({
      channelId: "1",
      userId: "2",
      text: "see",
      file: { filename: "a.pdf", content_type: "application/pdf", size: 100 },
    });
    const d = interpret(i, { attachments: "refuse" });
    expect(d).toMatchObject({
      kind: "answer",
      response: {
        type: 4,
        data: {
          flags: EPHEMERAL,
          content: expect.stringContaining('"a.pdf" (application/pdf, 100 B)'),
        },
      },
    });
  });

  it("answers other commands privately instead of queuing them", () => {
    const d = interpret(
      askInteraction({ channelId: "1", userId: "2", text: "x", command: "help" }),
    );
    expect(d).toEqual({
      kind: "answer",
      reason: "not /ask",
      response: {
        type: 4,
        data: {
          content: "This app only answers /ask.",
          flags: EPHEMERAL,
          allowed_mentions: { parse: [] },
        },
      },
    });
  });

  it("answers autocomplete with no choices", () => {
    const i = {
      ...askInteraction({ channelId: "1", userId: "2", text: "x" }),
      type: InteractionType.ApplicationCommandAutocomplete,
    };
    expect(interpret(i)).toMatchObject({
      kind: "answer",
      response: { type: 8, data: { choices: [] } },
    });
  });

  it.each([
    {
      name: "an interaction for another application",
      i: {
        ...askInteraction({ channelId: "1", userId: "2", text: "x" }),
        application_id: "999999999999999999",
      },
      key: "application_id",
    },
    {
      name: "/ask without a channel",
      i: {
        ...askInteraction({ channelId: "1", userId: "2", text: "x" }),
        channel_id: undefined,
        channel: undefined,
      },
      key: "channel_id",
    },
    {
      name: "/ask without who sent it",
      i: {
        ...askInteraction({ channelId: "1", userId: "2", text: "x" }),
        member: undefined,
        user: undefined,
      },
      key: "member.user.id",
    },
  ])("refuses $name with 400 naming the key", ({ i, key }) => {
    let caught: unknown;
    try {
      interpret(i);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ChannelRequestError);
    expect(caught).toMatchObject({ status: 400 });
    expect((caught as Error).message.startsWith(`${key}: `)).toBe(true);
  });
});
