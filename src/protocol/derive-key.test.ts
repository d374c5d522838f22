import { expect, it } from "vitest";
import { heartbeatSecret } from "./derive-key";

it("derives a different heartbeat secret per sandbox and per master secret", () => {
  const a = heartbeatSecret("m".repeat(32), "sbx_a");
  expect(a).toBe(heartbeatSecret("m".repeat(32), "sbx_a"));
  expect(a).not.toBe(heartbeatSecret("m".repeat(32), "sbx_b"));
  expect(a).not.toBe(heartbeatSecret("n".repeat(32), "sbx_a"));
  expect(a).not.toContain("m".repeat(8));
});
