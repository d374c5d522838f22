import { describe, expect, it } from "vitest";
import { slackSignature, verifySlackSignature } from "./signature";

/** The worked example in Slack's "Verifying requests from Slack" documentation. */
const DOC = {
  secret: "8f742231b10e8888abcd99yyyzzz85a5",
  timestamp: "1531420618",
  body: "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c",
  signature: "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
};
const docNow = Number(DOC.timestamp) * 1000;

const headers = (h: Record<string, string>) => ({ get: (n: string) => h[n.toLowerCase()] ?? null });
const docHeaders = (over: Record<string, string> = {}) =>
  headers({
    "x-slack-request-timestamp": DOC.timestamp,
    "x-slack-signature": DOC.signature,
    ...over,
  });

describe("Slack request signatures", () => {
  it("computes Slack's documented example signature", () => {
    expect(slackSignature(DOC.secret, DOC.timestamp, DOC.body)).toBe(DOC.signature);
  });

  it("accepts Slack's documented example request", () => {
    expect(verifySlackSignature(DOC.secret, docHeaders(), Buffer.from(DOC.body), docNow)).toEqual({
      ok: true,
    });
  });

  it.each<{
    name: string;
    body: string;
    h: Record<string, string>;
    now: number;
    reason: string;
    secret?: string;
  }>([
    { name: "a tampered body", body: `${DOC.body}&x=1`, h: {}, now: docNow, reason: "mismatch" },
    {
      name: "another secret",
      body: DOC.body,
      h: {},
      now: docNow,
      reason: "mismatch",
      secret: "0".repeat(32),
    },
    {
      name: "a signature for another timestamp",
      body: DOC.body,
      h: { "x-slack-request-timestamp": "1531420619" },
      now: docNow,
      reason: "mismatch",
    },
    {
      name: "a truncated signature",
      body: DOC.body,
      h: { "x-slack-signature": "v0=a2114d" },
      now: docNow,
      reason: "mismatch",
    },
    { name: "6 minutes late", body: DOC.body, h: {}, now: docNow + 6 * 60_000, reason: "stale" },
    { name: "6 minutes early", body: DOC.body, h: {}, now: docNow - 6 * 60_000, reason: "stale" },
    {
      name: "a timestamp in milliseconds",
      body: DOC.body,
      h: { "x-slack-request-timestamp": "1531420618000x" },
      now: docNow,
      reason: "bad-timestamp",
    },
  ])("refuses $name", ({ body, h, now, reason, secret }) => {
    expect(
      verifySlackSignature(secret ?? DOC.secret, docHeaders(h), Buffer.from(body), now),
    ).toEqual({ ok: false, reason });
  });

  it("accepts a request 4 minutes old (inside the five-minute window)", () => {
    expect(
      verifySlackSignature(DOC.secret, docHeaders(), Buffer.from(DOC.body), docNow + 4 * 60_000).ok,
    ).toBe(true);
  });

  it("refuses a request without its headers", () => {
    const body = Buffer.from(DOC.body);
    expect(
      verifySlackSignature(
        DOC.secret,
        headers({ "x-slack-signature": DOC.signature }),
        body,
        docNow,
      ),
    ).toEqual({ ok: false, reason: "missing" });
    expect(
      verifySlackSignature(
        DOC.secret,
        headers({ "x-slack-request-timestamp": DOC.timestamp }),
        body,
        docNow,
      ),
    ).toEqual({ ok: false, reason: "missing" });
  });
});
