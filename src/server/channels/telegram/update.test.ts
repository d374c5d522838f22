import { describe, expect, it } from "vitest";
import { textUpdate } from "../../../../tests/support/platforms/telegram";
import { ChannelRequestError } from "../types";
import { parseUpdate } from "./update";

const raw = (v: unknown) => Buffer.from(JSON.stringify(v));
const describeMode = { attachments: "describe" as const };
const media = (fields: Record<string, unknown>) =>
  raw({
    update_id: 77,
    message: {
      message_id: 5,
      chat: { id: 42, type: "private" },
      date: 1,
      from: { id: 42, is_bot: false },
      ...fields,
    },
  });

describe("parseUpdate", () => {
  it("turns a text message into the update_id dedupe key, the chat conversation and reply meta", () => {
    expect(
      parseUpdate(
        raw(textUpdate({ updateId: 10, chatId: 42, text: "hi", messageId: 3 })),
        describeMode,
      ),
    ).toEqual({
      kind: "message",
      id: "telegram:10",
      conversation: "telegram:42",
      text: "hi",
      meta: { chatId: 42, replyTo: 3 },
    });
  });

  it("keys a forum topic as its own conversation and keeps the thread for the reply", () => {
    const u = parseUpdate(
      raw(textUpdate({ updateId: 11, chatId: -1001, threadId: 7, text: "t" })),
      describeMode,
    );
    expect(u).toMatchObject({
      conversation: "telegram:-1001:7",
      meta: { chatId: -1001, threadId: 7 },
    });
  });

  it("does not treat a plain reply chain's message_thread_id as a topic", () => {
    const update = textUpdate({ updateId: 12, chatId: 42, text: "t" });
    (update.message as Record<string, unknown>).message_thread_id = 99;
    expect(parseUpdate(raw(update), describeMode)).toMatchObject({ conversation: "telegram:42" });
  });

  it.each([
    [
      "edited messages",
      {
        update_id: 1,
        edited_message: { message_id: 1, chat: { id: 1, type: "private" }, date: 1 },
      },
    ],
    [
      "channel posts",
      { update_id: 1, channel_post: { message_id: 1, chat: { id: 1, type: "channel" }, date: 1 } },
    ],
    ["an empty update", { update_id: 1 }],
    ["a bot's own message", textUpdate({ updateId: 1, chatId: 1, text: "x", fromBot: true })],
    [
      "service messages",
      {
        update_id: 1,
        message: { message_id: 1, chat: { id: 1, type: "group" }, date: 1, pinned_message: {} },
      },
    ],
  ])("ignores %s", (_name, update) => {
    expect(parseUpdate(raw(update), describeMode).kind).toBe("ignore");
  });

  it("ignores chats outside allowedChats and accepts those inside", () => {
    const u = raw(textUpdate({ updateId: 1, chatId: 42, text: "x" }));
    expect(parseUpdate(u, { ...describeMode, allowedChats: ["7"] })).toMatchObject({
      kind: "ignore",
      reason: "chat 42 is not in allowedChats",
    });
    expect(parseUpdate(u, { ...describeMode, allowedChats: ["42"] }).kind).toBe("message");
  });

  it.each([
    [
      {
        photo: [
          { width: 90, height: 60 },
          { width: 1280, height: 853 },
        ],
        caption: "our dog",
      },
      "[photo, 1280×853]\nour dog",
    ],
    [{ voice: { duration: 7, mime_type: "audio/ogg" } }, "[voice message, 7 s]"],
    [
      { document: { file_name: "report.pdf", mime_type: "application/pdf" } },
      '[file "report.pdf", application/pdf]',
    ],
    [{ sticker: { emoji: "😀", width: 512, height: 512 } }, "[sticker 😀]"],
    [{ location: { latitude: 52.52, longitude: 13.405 } }, "[location 52.52, 13.405]"],
    [
      { contact: { first_name: "Ada", last_name: "L", phone_number: "+4930123" } },
      "[contact Ada L, +4930123]",
    ],
    [
      { audio: { performer: "Band", title: "Song", duration: 200 } },
      '[audio file "Band – Song", 200 s]',
    ],
  ])("describes attachments to the agent as text: %j", (fields, text) => {
    expect(parseUpdate(media(fields), describeMode)).toMatchObject({
      kind: "message",
      id: "telegram:77",
      text,
    });
  });

  it("refuses attachments in refuse mode, naming the kind, with where to answer", () => {
    expect(parseUpdate(media({ voice: { duration: 3 } }), { attachments: "refuse" })).toEqual({
      kind: "refuse",
      reason: "a voice message",
      what: "voice message",
      meta: { chatId: 42, replyTo: 5 },
    });
  });

  it.each([
    ["not JSON", Buffer.from("{nope"), /body: expected a JSON Telegram Update/],
    ["no update_id", raw({ message: {} }), /update_id/],
    [
      "a string chat id",
      raw({
        update_id: 1,
        message: { message_id: 1, chat: { id: "x", type: "private" }, date: 1 },
      }),
      /message\.chat\.id/,
    ],
    ["a negative update_id", raw({ update_id: -1 }), /update_id/],
  ])("answers 400 for %s, naming the field", (_name, body, message) => {
    let error: unknown;
    try {
      parseUpdate(body, describeMode);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ChannelRequestError);
    expect(error).toMatchObject({ status: 400, message: expect.stringMatching(message) });
  });
});
