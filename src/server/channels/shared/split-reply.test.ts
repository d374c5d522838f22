import { describe, expect, it } from "vitest";
import { splitReply } from "./split-reply";

describe("splitReply", () => {
  it.each([
    { name: "short text stays whole", text: "hello", limit: 10, want: ["hello"] },
    { name: "exactly the limit stays whole", text: "abcdefghij", limit: 10, want: ["abcdefghij"] },
    { name: "empty text gives no pieces", text: "", limit: 10, want: [] },
    { name: "whitespace-only text gives no pieces", text: " \n\n ", limit: 10, want: [] },
    {
      name: "breaks at the last line break in the window",
      text: "line one\nline two\nline three",
      limit: 20,
      want: ["line one\nline two", "line three"],
    },
    {
      name: "prefers a line break over a later space",
      text: "aaaaaaaa\nbbb ccc ddd",
      limit: 15,
      want: ["aaaaaaaa", "bbb ccc ddd"],
    },
    {
      name: "falls back to the last space when no line break is in the second half",
      text: "one two three four five",
      limit: 10,
      want: ["one two", "three four", "five"],
    },
    {
      name: "a break exactly after the limit still fills the piece",
      text: "abcdefghij klm",
      limit: 10,
      want: ["abcdefghij", "klm"],
    },
    {
      name: "cuts hard inside a word longer than the limit",
      text: "abcdefghijklmnopqrstuvwxyz",
      limit: 10,
      want: ["abcdefghij", "klmnopqrst", "uvwxyz"],
    },
    {
      name: "ignores a break in the first half (a hard cut beats a tiny piece)",
      text: "a bcdefghijklmnop",
      limit: 10,
      want: ["a bcdefghi", "jklmnop"],
    },
    {
      name: "drops pieces that would be only whitespace",
      text: `${"a".repeat(10)}\n\n\n\n${"b".repeat(5)}`,
      limit: 10,
      want: ["aaaaaaaaaa", "bbbbb"],
    },
  ])("$name", ({ text, limit, want }) => {
    expect(splitReply(text, limit)).toEqual(want);
  });

  it("never splits a surrogate pair (emoji) and never exceeds the limit", () => {
    const text = "😀".repeat(7); // 14 UTF-16 code units
    const pieces = splitReply(text, 5);
    expect(pieces.join("")).toBe(text);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(5);
      expect(p.length % 2).toBe(0); // whole pairs only
    }
  });

  it("keeps every word of a long reply, in order, within Discord's 2,000 and Slack's 4,000", () => {
    const words = Array.from({ length: 3000 }, (_, i) => `word${i}`);
    const text = words.join(" ").replace(/word(\d*)00 /g, "word$100\n");
    for (const limit of [2000, 4000]) {
      const pieces = splitReply(text, limit);
      expect(pieces.length).toBeGreaterThan(1);
      for (const p of pieces) expect(p.length).toBeLessThanOrEqual(limit);
      expect(pieces.join(" ").split(/\s+/)).toEqual(words);
    }
  });

  it("refuses a nonsensical limit", () => {
    expect(() => splitReply("x", 1)).toThrow(/limit: expected an integer of at least 2/);
  });
});
