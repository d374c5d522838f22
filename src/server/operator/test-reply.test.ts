import { describe, expect, it } from "vitest";
import type { LifecycleEvent } from "../domain/events";
import { TEST_MESSAGE_ID, testReplyFrom } from "./test-reply";

const ID = "test-1764670000000-a1b2c3";
let n = 0;
const ev = (type: string, details: Record<string, unknown>, message = type): LifecycleEvent => ({
  id: `e${++n}`,
  at: n,
  type,
  level: "info",
  sandboxId: null,
  message,
  details,
});

describe("testReplyFrom (newest first, as the store lists)", () => {
  it.each([
    ["nothing yet", [], { state: "waiting", reply: null }],
    [
      "delivered, no reply yet",
      [ev("message.delivered", { messageId: ID })],
      { state: "delivered" },
    ],
    [
      "replied with no replyUrl: the reply text comes from the delivery record",
      [
        ev(
          "message.replied",
          { messageId: ID, sent: false, reply: "echo: hi" },
          `reply to ${ID}: no channels.generic.replyUrl configured`,
        ),
        ev("message.delivered", { messageId: ID }),
      ],
      { state: "replied", reply: "echo: hi" },
    ],
    [
      "dead-lettered",
      [ev("inbox.dead-letter", { messageId: ID }, "gave up")],
      { state: "failed", detail: "gave up" },
    ],
    [
      "another message's reply is not ours",
      [ev("message.replied", { messageId: "test-1-ffffff", reply: "x" })],
      { state: "waiting" },
    ],
  ])("%s", (_name, events, want) => {
    expect(testReplyFrom(events, ID)).toMatchObject({ id: ID, ...want });
  });

  it("accepts only the ids test messages get", () => {
    expect(TEST_MESSAGE_ID.test(ID)).toBe(true);
    expect(TEST_MESSAGE_ID.test("cli-abc")).toBe(false);
    expect(TEST_MESSAGE_ID.test("test-1-a1b2c3/../x")).toBe(false);
  });
});
