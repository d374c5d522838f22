import { describe, expect, it } from "vitest";
import { requestIsHttps } from "./cookie-security";

const h = (entries: Record<string, string>) => new Headers(entries);

describe("requestIsHttps (whether the session cookie may be Secure)", () => {
  it.each([
    ["plain http on a LAN host", "http://192.168.1.20:3000/api/auth/login", {}, false],
    ["plain http on localhost", "http://localhost:3000/api/auth/login", {}, false],
    ["https directly", "https://clawrun.example/api/auth/login", {}, true],
    [
      "http behind a TLS proxy",
      "http://10.0.0.2/api/auth/login",
      { "x-forwarded-proto": "https" },
      true,
    ],
    [
      "a proxy chain, first hop https",
      "http://10.0.0.2/x",
      { "x-forwarded-proto": "https, http" },
      true,
    ],
    ["a proxy that says http", "https://clawrun.example/x", { "x-forwarded-proto": "http" }, false],
  ])("%s", (_name, url, headers, expected) => {
    expect(requestIsHttps(url, h(headers))).toBe(expected);
  });
});
