import { describe, expect, it } from "vitest";
import { splitText } from "./split-text";

describe("splitText", () => {
  it.each([
    ["short text stays whole", "hello", 10, ["hello"]],
    ["exactly the limit stays whole", "abcdefghij", 10, ["abcdefghij"]],
    [
      "splits at the last line break that fits",
      "line one\nline two\nthree",
      18,
      ["line one\nline two", "three"],
    ],
    ["prefers a line break over a later space", "aaaa\nbb cc dd", 10, ["aaaa", "bb cc dd"]],
    ["falls back to the last space", "alpha beta gamma delta", 11, ["alpha beta", "gamma delta"]],
    ["cuts a word longer than the limit", "abcdefghijklmnop", 5, ["abcde", "fghij", "klmno", "p"]],
    ["drops whitespace-only parts", "   \n\n  ", 3, []],
    ["empty text has no parts", "", 4096, []],
    ["keeps leading indentation of a part", "x\n  indented", 11, ["x", "  indented"]],
  ])("%s", (_name, text, limit, expected) => {
    expect(splitText(text, limit)).toEqual(expected);
  });

  it("never separates a surrogate pair", () => {
    const text = "ab😀cd"; // the emoji is two UTF-16 code units at index 2-3
    const parts = splitText(text, 3);
    expect(parts).toEqual(["ab", "😀c", "d"]);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(3);
  });

  it("keeps every part within the limit and every word of a long reply, in order", () => {
    const words = Array.from({ length: 3000 }, (_, i) => `word${i}`);
    const text = words.join(" ");
    const parts = splitText(text, 4096);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(4096);
    expect(parts.join(" ").split(" ")).toEqual(words);
  });

  it("refuses a limit that cannot make progress", () => {
    expect(() => splitText("abc", 1)).toThrow(/limit/);
  });
});
