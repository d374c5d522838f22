import { describe, expect, it } from "vitest";
import { allowedOrigins, checkOrigin } from "./csrf";

const headers = (h: Record<string, string>) => ({ get: (n: string) => h[n] ?? null });
const allowed = allowedOrigins(
  "http://127.0.0.1:3000/api/sandbox/stop",
  "localhost:3000",
  "https://claw.example.com",
);

describe("CSRF origin check", () => {
  it("knows our own origins", () => {
    expect(allowed.sort()).toEqual([
      "http://127.0.0.1:3000",
      "http://localhost:3000",
      "https://claw.example.com",
    ]);
  });

  it.each([
    ["same origin", { origin: "http://localhost:3000" }, true],
    ["public URL", { origin: "https://claw.example.com" }, true],
    ["referer when Origin is absent", { referer: "http://localhost:3000/" }, true],
    ["another site", { origin: "https://evil.example" }, false],
    ["a look-alike port", { origin: "http://localhost:3001" }, false],
    ["opaque origin", { origin: "null" }, false],
    ["neither header", {}, false],
  ] as const)("%s", (_n, h, ok) => {
    expect(checkOrigin(headers(h), allowed).ok).toBe(ok);
  });
});
