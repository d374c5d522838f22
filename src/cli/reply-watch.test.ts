import { describe, expect, it } from "vitest";
import type { EventView } from "./api-schemas";
import { messageFate } from "./reply-watch";

const ev = (type: string, details: unknown, message = type): EventView => ({
  id: `${type}-${Math.random()}`,
  at: 0,
  type,
  level: "info",
  message,
  details,
});

describe("messageFate", () => {
  it("follows one message through the event log", () => {
    const other = ev("message.replied", { messageId: "m2", reply: "not yours" });
    const delivered = ev("message.delivered", { messageId: "m1" });
    const replied = ev("message.replied", { messageId: "m1", reply: "hi!" }, "reply to m1: sent");
    expect(messageFate([other], "m1")).toBeNull();
    expect(messageFate([other, delivered], "m1")).toEqual({ kind: "delivered" });
    expect(messageFate([delivered, replied], "m1")).toEqual({
      kind: "replied",
      reply: "hi!",
      detail: "reply to m1: sent",
    });
  });

  it.each(["inbox.dead-letter", "reply.dead-letter"])("%s is a failure", (type) => {
    expect(messageFate([ev(type, { messageId: "m1" }, "gave up")], "m1")).toEqual({
      kind: "failed",
      detail: "gave up",
    });
  });

  it("ignores events without a message id", () => {
    expect(messageFate([ev("status.running", {}), ev("x", null)], "m1")).toBeNull();
  });
});
