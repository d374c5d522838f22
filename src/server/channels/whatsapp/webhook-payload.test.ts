import { describe, expect, it } from "vitest";
import {
  messagesPayload,
  statusUpdate,
  textMessage,
} from "../../../../tests/support/platforms/whatsapp";
import { ChannelRequestError } from "../types";
import { parsePayload } from "./webhook-payload";

const raw = (v: unknown) => Buffer.from(JSON.stringify(v));
const PN = "106540352242922";
const describeMode = { attachments: "describe" as const };
const one = (m: Record<string, unknown>) =>
  raw(messagesPayload(PN, [{ from: "4915112345678", id: "wamid.A", type: m.type, ...m }]));

describe("parsePayload", () => {
  it("keys a text message by wamid, the sender's wa_id as conversation, and keeps the business number", () => {
    expect(
      parsePayload(
        raw(messagesPayload(PN, [textMessage("4915112345678", "wamid.HBg1", "hi")])),
        describeMode,
      ),
    ).toEqual({
      messages: [
        {
          id: "whatsapp:wamid.HBg1",
          conversation: "whatsapp:4915112345678",
          text: "hi",
          meta: { phoneNumberId: PN, to: "4915112345678" },
        },
      ],
      refusals: [],
      ignored: [],
    });
  });

  it("keeps every message of a batched webhook, in order, across entries and changes", () => {
    const a = messagesPayload(PN, [
      textMessage("111111", "wamid.1", "one"),
      textMessage("222222", "wamid.2", "two"),
    ]);
    const b = messagesPayload("999999", [textMessage("111111", "wamid.3", "three")]);
    const both = {
      object: "whatsapp_business_account",
      entry: [...(a.entry as unknown[]), ...(b.entry as unknown[])],
    };
    const p = parsePayload(raw(both), describeMode);
    expect(p.messages.map((m) => [m.id, m.meta.phoneNumberId])).toEqual([
      ["whatsapp:wamid.1", PN],
      ["whatsapp:wamid.2", PN],
      ["whatsapp:wamid.3", "999999"],
    ]);
  });

  it("ignores status callbacks, reactions, system messages and other fields", () => {
    const p = parsePayload(
      raw({
        object: "whatsapp_business_account",
        entry: [
          {
            id: "1",
            changes: [
              { field: "account_update", value: {} },
              (
                messagesPayload(PN, [], [statusUpdate("111111", "wamid.S", "read")]).entry as {
                  changes: unknown[];
                }[]
              )[0]?.changes[0],
            ],
          },
        ],
      }),
      describeMode,
    );
    expect(p).toEqual({
      messages: [],
      refusals: [],
      ignored: ['field "account_update"', "1 status callback(s)"],
    });
    expect(
      parsePayload(
        one({ type: "reaction", reaction: { message_id: "wamid.X", emoji: "👍" } }),
        describeMode,
      ).ignored,
    ).toEqual(["a reaction message"]);
    expect(
      parsePayload(one({ type: "system", system: { body: "changed number" } }), describeMode)
        .messages,
    ).toEqual([]);
  });

  it("takes button and list replies as the text the person tapped", () => {
    const p = parsePayload(
      one({
        type: "interactive",
        interactive: { type: "button_reply", button_reply: { id: "y", title: "Yes please" } },
      }),
      describeMode,
    );
    expect(p.messages[0]?.text).toBe("Yes please");
  });

  it.each([
    [
      {
        type: "image",
        image: { caption: "our dog", mime_type: "image/jpeg", sha256: "x", id: "1" },
      },
      "[photo, image/jpeg]\nour dog",
    ],
    [
      { type: "audio", audio: { mime_type: "audio/ogg; codecs=opus", voice: true, id: "2" } },
      "[voice message]",
    ],
    [
      { type: "document", document: { filename: "cv.pdf", mime_type: "application/pdf", id: "3" } },
      '[file "cv.pdf", application/pdf]',
    ],
    [
      { type: "sticker", sticker: { animated: false, mime_type: "image/webp", id: "4" } },
      "[sticker]",
    ],
    [
      { type: "location", location: { latitude: 52.5, longitude: 13.4, name: "Office" } },
      '[location 52.5, 13.4 "Office"]',
    ],
    [
      {
        type: "contacts",
        contacts: [{ name: { formatted_name: "Ada L" }, phones: [{ phone: "+49 30 1" }] }],
      },
      "[contact Ada L, +49 30 1]",
    ],
    [
      { type: "unsupported", errors: [{ code: 131051 }] },
      "[a message of a kind WhatsApp does not pass on to businesses]",
    ],
  ])("describes attachments to the agent: %j", (m, text) => {
    expect(parsePayload(one(m), describeMode).messages[0]?.text).toBe(text);
  });

  it("refuses attachments in refuse mode, with the wamid to quote", () => {
    expect(
      parsePayload(one({ type: "audio", audio: { voice: true } }), { attachments: "refuse" }),
    ).toEqual({
      messages: [],
      refusals: [
        {
          meta: { phoneNumberId: PN, to: "4915112345678" },
          wamid: "wamid.A",
          what: "voice message",
        },
      ],
      ignored: [],
    });
  });

  it("ignores other business numbers and senders outside allowedSenders", () => {
    const payload = raw(messagesPayload(PN, [textMessage("111111", "wamid.1", "x")]));
    expect(parsePayload(payload, { ...describeMode, phoneNumberId: "555555" }).messages).toEqual(
      [],
    );
    expect(parsePayload(payload, { ...describeMode, allowedSenders: ["222222"] }).ignored).toEqual([
      "sender 111111 is not in allowedSenders",
    ]);
    expect(
      parsePayload(payload, { ...describeMode, phoneNumberId: PN, allowedSenders: ["111111"] })
        .messages,
    ).toHaveLength(1);
  });

  it.each([
    ["not JSON", Buffer.from("<xml/>"), /body: expected a JSON WhatsApp webhook/],
    [
      "another object",
      raw({ object: "page", entry: [] }),
      /object: expected "whatsapp_business_account"/,
    ],
    ["no entry", raw({ object: "whatsapp_business_account" }), /entry/],
    [
      "a message without an id",
      raw(messagesPayload(PN, [{ from: "1", type: "text", text: { body: "x" } }])),
      /entry\[0\]\.changes\[0\]\.value\.messages\[0\]\.id/,
    ],
  ])("answers 400 for %s, naming the field", (_name, body, message) => {
    let error: unknown;
    try {
      parsePayload(body, describeMode);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ChannelRequestError);
    expect(error).toMatchObject({ status: 400, message: expect.stringMatching(message) });
  });
});
