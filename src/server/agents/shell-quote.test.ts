import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { assertPinnedVersion, shellQuote } from "./shell-quote";

describe("shellQuote", () => {
  it.each(["plain", "with space", "it's", "$(rm -rf /)", "a'b'c", ""])(
    "the shell reads %j back unchanged",
    (value) => {
      expect(execFileSync("sh", ["-c", `printf %s ${shellQuote(value)}`]).toString()).toBe(value);
    },
  );
});

describe("assertPinnedVersion", () => {
  it.each(["2026.9.6", "24.22.3", "0.8.3", "1.2.3-beta.4"])("accepts %s", (v) => {
    expect(() => assertPinnedVersion("x", v)).not.toThrow();
  });
  it.each(["latest", "^1.2.3", "1.2", "1.2.3 && rm", "1.2.3-"])("refuses %j", (v) => {
    expect(() => assertPinnedVersion("tool version", v)).toThrow(
      `tool version: expected a pinned version like 1.2.3, got ${JSON.stringify(v)}`,
    );
  });
});
