import { describe, expect, it } from "vitest";
import type { LifecycleEvent } from "../domain/events";
import { channelActivity } from "./channel-cards";

const ev = (at: number, type: string, channel: string, level = "info"): LifecycleEvent =>
  ({
    id: String(at),
    at,
    type,
    level,
    sandboxId: null,
    message: `${type} ${at}`,
    details: { channel },
  }) as LifecycleEvent;

describe("channelActivity", () => {
  it("finds the newest in, out and problem of one channel only", () => {
    const events = [
      ev(5, "message.replied", "telegram"),
      ev(4, "reply.retry", "telegram", "warn"),
      ev(3, "message.delivered", "telegram"),
      ev(9, "message.delivered", "slack"),
      ev(1, "message.delivered", "telegram"),
    ];
    expect(channelActivity(events, "telegram")).toEqual({
      lastIn: 3,
      lastOut: 5,
      lastProblem: { at: 4, level: "warn", message: "reply.retry 4" },
    });
    expect(channelActivity(events, "discord")).toEqual({
      lastIn: null,
      lastOut: null,
      lastProblem: null,
    });
  });
});
