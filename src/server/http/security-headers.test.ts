import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, newNonce } from "./security-headers";

describe("the dashboard's Content-Security-Policy", () => {
  it("allows scripts only with the nonce, and eval only under next dev", () => {
    const prod = contentSecurityPolicy("abc", false);
    expect(prod).toContain("script-src 'self' 'nonce-abc' 'strict-dynamic'");
    expect(prod).not.toContain("unsafe-eval");
    expect(prod).toContain("frame-ancestors 'none'");
    expect(contentSecurityPolicy("abc", true)).toContain("'unsafe-eval'");
  });

  it("never repeats a nonce", () => {
    const nonces = new Set(Array.from({ length: 100 }, newNonce));
    expect(nonces.size).toBe(100);
  });
});
