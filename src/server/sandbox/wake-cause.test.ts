import { describe, expect, it } from "vitest";
import { type WakeCauseFacts, wakeCause } from "./wake-cause";

const now = 1_800_000_000_000;
const facts = (f: Partial<WakeCauseFacts> = {}): WakeCauseFacts => ({
  firstPending: null,
  cronDueAt: null,
  now,
  cronWakeLeadTimeMs: 60_000,
  ...f,
});
const m = { id: "m-1", channel: "telegram" };

describe("wakeCause (pure)", () => {
  it.each([
    ["operator, nothing waiting", "operator", facts(), { wake: true, cause: "asked" }],
    [
      "message waiting",
      "message",
      facts({ firstPending: m }),
      { wake: true, cause: "message m-1 from telegram" },
    ],
    [
      "message trigger, inbox empty",
      "message",
      facts(),
      { wake: false, reason: "no message is waiting (delivered meanwhile)" },
    ],
    [
      "message trigger, a cron job due: not its cause",
      "message",
      facts({ cronDueAt: now }),
      { wake: false, reason: "no message is waiting (delivered meanwhile)" },
    ],
    [
      "cron due within the lead time",
      "cron",
      facts({ cronDueAt: now + 60_000 }),
      { wake: true, cause: `cron job due at ${new Date(now + 60_000).toISOString()}` },
    ],
    [
      "cron not yet due, a message waiting",
      "cron",
      facts({ cronDueAt: now + 61_000, firstPending: m }),
      { wake: true, cause: "message m-1 from telegram" },
    ],
    [
      "cron not yet due, nothing waiting",
      "cron",
      facts({ cronDueAt: now + 61_000 }),
      { wake: false, reason: "no cron job is due and no message is waiting" },
    ],
  ] as const)("%s", (_, trigger, f, expected) => {
    expect(wakeCause({ trigger, reason: "asked" }, f)).toEqual(expected);
  });
});
