import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendError } from "../../../../tests/support/platforms/send-error";
import { type FakeSlack, startFakeSlack } from "../../../../tests/support/platforms/slack";
import { SlackApi } from "./api-client";

const token = "xoxb-test-token-0001";
let slack: FakeSlack;
let api: SlackApi;
const signal = () => AbortSignal.timeout(5_000);
const dmPost = { channel: "D0DM", text: "x", threadTs: null };

beforeAll(async () => {
  slack = await startFakeSlack({ token, signingSecret: "s".repeat(32) });
  api = new SlackApi({ baseUrl: slack.apiBaseUrl, token });
});
afterAll(() => slack?.stop());

describe("SlackApi against a Slack stand-in", () => {
  it("posts with the bot token as Bearer, JSON with charset, in the thread", async () => {
    const ts = await api.postMessage(
      { channel: "C0GENERAL", text: "hi", threadTs: "1.000100" },
      signal(),
    );
    expect(slack.calls.at(-1)).toMatchObject({
      method: "POST",
      path: "/api/chat.postMessage",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json; charset=utf-8",
      },
      body: { channel: "C0GENERAL", text: "hi", thread_ts: "1.000100" },
    });
    expect(slack.messages.at(-1)).toMatchObject({
      channel: "C0GENERAL",
      ts,
      threadTs: "1.000100",
      text: "hi",
    });
  });

  it("posts at the top of the channel when there is no thread", async () => {
    await api.postMessage({ channel: "D0DM", text: "top", threadTs: null }, signal());
    expect(slack.calls.at(-1)?.body).toEqual({ channel: "D0DM", text: "top" });
  });

  it("updates a message, and reports a missing one as a result", async () => {
    const ts = await api.postMessage({ channel: "D0DM", text: "waking", threadTs: null }, signal());
    expect(await api.update({ channel: "D0DM", ts, text: "answer" }, signal())).toMatchObject({
      ok: true,
    });
    expect(slack.messages.find((m) => m.ts === ts)?.history).toEqual(["waking", "answer"]);
    expect(await api.update({ channel: "D0DM", ts: "9.9", text: "x" }, signal())).toEqual({
      ok: false,
      code: "message_not_found",
    });
  });

  it("auth.test tells who the token belongs to", async () => {
    expect(await api.authTest(signal())).toMatchObject({
      ok: true,
      value: { user: "clawrun", user_id: "U0CLAWBOT" },
    });
  });

  it("429 → a retryable error carrying Retry-After in milliseconds", async () => {
    slack.rateLimit(1, 7);
    const err = await sendError(api.postMessage(dmPost, signal()));
    expect(err).toMatchObject({ retryAfterMs: 7000, permanent: false });
    expect(err.message).toContain("rate limited");
  });

  it.each([
    { code: "channel_not_found", permanent: true },
    { code: "not_in_channel", permanent: true },
    { code: "is_archived", permanent: true },
    { code: "internal_error", permanent: false },
    { code: "service_unavailable", permanent: false },
  ])("ok:false $code → permanent: $permanent", async ({ code, permanent }) => {
    slack.failNext(code);
    const err = await sendError(api.postMessage(dmPost, signal()));
    expect(err).toMatchObject({ permanent });
    expect(err.message).toBe(`Slack chat.postMessage failed: ${code}`);
  });

  it("a wrong token is permanent, and the token never appears in the error", async () => {
    const wrong = new SlackApi({ baseUrl: slack.apiBaseUrl, token: "xoxb-wrong-token" });
    const err = await sendError(wrong.postMessage(dmPost, signal()));
    expect(err).toMatchObject({
      permanent: true,
      message: "Slack chat.postMessage failed: invalid_auth",
    });
  });

  it("HTTP 5xx is retryable; so is an unreachable Slack", async () => {
    slack.failNext("boom", 503);
    expect(await sendError(api.postMessage(dmPost, signal()))).toMatchObject({ permanent: false });
    const down = new SlackApi({ baseUrl: "http://127.0.0.1:9/api", token });
    const err = await sendError(down.postMessage(dmPost, signal()));
    expect(err).toMatchObject({ permanent: false });
    expect(err.message).toContain("could not be reached");
  });
});
