import { describe, expect, it } from "vitest";
import { ChannelRequestError } from "../types";
import { checkHubSignature, hubSignature } from "./signature";

const headers = (value?: string) => ({
  get: (name: string) => (name === "x-hub-signature-256" ? (value ?? null) : null),
});
const failure = (fn: () => void) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ChannelRequestError);
    return err as ChannelRequestError;
  }
  throw new Error("expected a ChannelRequestError");
};

describe("X-Hub-Signature-256", () => {
  // Meta publishes no sample signature; the HMAC-SHA256 itself is checked against RFC 4231's
  // test case 2 (key "Jefe"), in the header's documented form "sha256=<hex>".
  it("is sha256= and the hex HMAC-SHA256 of the raw body (RFC 4231, test case 2)", () => {
    expect(hubSignature("Jefe", "what do ya want for nothing?")).toBe(
      "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    );
  });

  it("accepts the signature over the exact bytes, in either hex case", () => {
    const raw = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');
    expect(() =>
      checkHubSignature(headers(hubSignature("app-secret", raw)), raw, "app-secret"),
    ).not.toThrow();
    const upper = `sha256=${hubSignature("app-secret", raw).slice(7).toUpperCase()}`;
    expect(() => checkHubSignature(headers(upper), raw, "app-secret")).not.toThrow();
  });

  it.each([
    ["a missing header", undefined, /missing X-Hub-Signature-256/],
    ["another format", "sha1=abc", /expected sha256=<64 hex digits>/],
    ["another secret", hubSignature("other-secret", "{}"), /does not match/],
  ])("refuses %s with 401", (_name, value, message) => {
    const err = failure(() => checkHubSignature(headers(value), Buffer.from("{}"), "app-secret"));
    expect(err).toMatchObject({ status: 401, message: expect.stringMatching(message) });
  });

  it("refuses a body re-serialised after signing (a space changes the bytes)", () => {
    const sig = hubSignature("app-secret", '{"a":1}');
    const err = failure(() =>
      checkHubSignature(headers(sig), Buffer.from('{"a": 1}'), "app-secret"),
    );
    expect(err.status).toBe(401);
  });
});
