import { generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { discordPublicKey, ed25519Verify, verifyDiscordSignature } from "./signature";

/** RFC 8032 section 7.1, Ed25519 TEST 1 to TEST 3: public key, message, signature (hex). */
const RFC8032 = [
  {
    name: "TEST 1 (empty message)",
    publicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    message: "",
    signature:
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
  },
  {
    name: "TEST 2 (one byte)",
    publicKey: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    message: "72",
    signature:
      "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
  },
  {
    name: "TEST 3 (two bytes)",
    publicKey: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
    message: "af82",
    signature:
      "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
  },
];

describe("Ed25519 with keys in the Developer Portal's hex form (RFC 8032 test vectors)", () => {
  it.each(RFC8032)("$name verifies", ({ publicKey, message, signature }) => {
    expect(ed25519Verify(discordPublicKey(publicKey), Buffer.from(message, "hex"), signature)).toBe(
      true,
    );
  });

  it.each(RFC8032)(
    "$name fails with one signature bit flipped",
    ({ publicKey, message, signature }) => {
      const flipped =
        (Number.parseInt(signature[0] as string, 16) ^ 1).toString(16) + signature.slice(1);
      expect(ed25519Verify(discordPublicKey(publicKey), Buffer.from(message, "hex"), flipped)).toBe(
        false,
      );
    },
  );

  it("fails with another vector's key", () => {
    const [one, two] = RFC8032;
    expect(
      ed25519Verify(discordPublicKey(two?.publicKey ?? ""), Buffer.alloc(0), one?.signature ?? ""),
    ).toBe(false);
  });

  it("refuses a key that is not 64 hex characters", () => {
    expect(() => discordPublicKey("abc")).toThrow(/64 hex characters/);
  });
});

const headers = (h: Record<string, string>) => ({ get: (n: string) => h[n.toLowerCase()] ?? null });

describe("Discord interaction signatures (timestamp + raw body)", () => {
  // Signed once with RFC 8032 TEST 1's secret key and frozen: pins the "timestamp then body" order.
  const frozen = {
    key: discordPublicKey(RFC8032[0]?.publicKey ?? ""),
    timestamp: "1700000000",
    body: Buffer.from('{"type":1}'),
    signature:
      "1695961a47c91a1ec033b819b7e87e3dbc583dd0cee6d1fd0216f58ac87b6228ae531ddbf91fb7bc28d7edf7f08604da16f54624f38a6bc0614e4dc13cd47f0f",
  };
  const at = 1700000000 * 1000;
  const frozenHeaders = (over: Record<string, string> = {}) =>
    headers({
      "x-signature-ed25519": frozen.signature,
      "x-signature-timestamp": frozen.timestamp,
      ...over,
    });

  it("accepts the frozen request", () => {
    expect(verifyDiscordSignature(frozen.key, frozenHeaders(), frozen.body, at)).toEqual({
      ok: true,
    });
  });

  it.each<{ name: string; h: Record<string, string>; body?: string; now?: number; reason: string }>(
    [
      { name: "a tampered body", h: {}, body: '{"type":2}', reason: "mismatch" },
      {
        name: "another timestamp",
        h: { "x-signature-timestamp": "1700000001" },
        now: at,
        reason: "mismatch",
      },
      {
        name: "a signature that is not hex",
        h: { "x-signature-ed25519": "zz".repeat(64) },
        reason: "malformed",
      },
      {
        name: "a short signature",
        h: { "x-signature-ed25519": "ab".repeat(10) },
        reason: "malformed",
      },
      { name: "a timestamp 6 minutes old", h: {}, now: at + 6 * 60_000, reason: "stale" },
    ],
  )("refuses $name", ({ h, body, now, reason }) => {
    const raw = body === undefined ? frozen.body : Buffer.from(body);
    expect(verifyDiscordSignature(frozen.key, frozenHeaders(h), raw, now ?? at)).toEqual({
      ok: false,
      reason,
    });
  });

  it("refuses a request without the headers", () => {
    expect(verifyDiscordSignature(frozen.key, headers({}), frozen.body, at)).toEqual({
      ok: false,
      reason: "missing",
    });
  });

  it("accepts a request signed with a freshly made key pair, refuses one signed with another", () => {
    const mine = generateKeyPairSync("ed25519");
    const theirs = generateKeyPairSync("ed25519");
    const hex = Buffer.from(
      mine.publicKey.export({ format: "jwk" }).x as string,
      "base64url",
    ).toString("hex");
    const body = Buffer.from('{"type":2,"id":"1"}');
    const ts = String(Math.floor(Date.now() / 1000));
    const sig = (k: typeof mine.privateKey) =>
      sign(null, Buffer.concat([Buffer.from(ts), body]), k).toString("hex");
    const check = (k: typeof mine.privateKey) =>
      verifyDiscordSignature(
        discordPublicKey(hex),
        headers({ "x-signature-ed25519": sig(k), "x-signature-timestamp": ts }),
        body,
        Date.now(),
      );
    expect(check(mine.privateKey)).toEqual({ ok: true });
    expect(check(theirs.privateKey)).toEqual({ ok: false, reason: "mismatch" });
  });
});
