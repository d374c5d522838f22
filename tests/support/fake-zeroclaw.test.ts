import { afterEach, describe, expect, it } from "vitest";
import { pairedTokenHash } from "../../src/server/agents/zeroclaw/config-file";
import { type FakeZeroClaw, startFakeZeroClaw } from "./fake-zeroclaw";

let fake: FakeZeroClaw | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${fake?.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer t", ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("fake ZeroClaw gateway", () => {
  it("answers /health like ZeroClaw, unauthenticated", async () => {
    fake = await startFakeZeroClaw({ pairedTokenHashes: [pairedTokenHash("t")] });
    const res = await fetch(`${fake.baseUrl}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok", paired: true, require_pairing: true });
  });

  it("refuses a bad body, an unknown agent and a missing token with ZeroClaw's errors", async () => {
    fake = await startFakeZeroClaw({ pairedTokenHashes: [pairedTokenHash("t")] });
    expect(await post("/webhook", "{}")).toEqual({
      status: 400,
      body: { error: 'Invalid JSON body. Expected: {"message": "..."}' },
    });
    expect((await post("/webhook?agent=ghost", '{"message":"x"}')).body.error).toMatch(
      /Unknown agent `ghost`/,
    );
    expect(
      (await post("/webhook", '{"message":"x"}', { authorization: "Bearer nope" })).status,
    ).toBe(401);
    expect(fake.processed()).toHaveLength(0);
  });

  it("keeps memory per valid session id and none for an invalid one", async () => {
    fake = await startFakeZeroClaw({ pairedTokenHashes: [pairedTokenHash("t")] });
    await post("/webhook", '{"message":"one"}', { "x-session-id": "s1" });
    const second = await post("/webhook", '{"message":"two"}', { "x-session-id": "s1" });
    expect(second.body.response).toBe('fake-zeroclaw session=s1 turn=2 heard=["one","two"]');
    const invalid = await post("/webhook", '{"message":"three"}', { "x-session-id": "has:colon" });
    expect(invalid.body.response).toBe('fake-zeroclaw session=none turn=1 heard=["three"]');
  });

  it("runs a message once per idempotency key", async () => {
    fake = await startFakeZeroClaw({ pairedTokenHashes: [pairedTokenHash("t")] });
    await post("/webhook", '{"message":"x"}', { "x-idempotency-key": "k" });
    const dup = await post("/webhook", '{"message":"x"}', { "x-idempotency-key": "k" });
    expect(dup).toEqual({
      status: 200,
      body: {
        status: "duplicate",
        idempotent: true,
        message: "Request already processed for this idempotency key",
      },
    });
    expect(fake.processed()).toHaveLength(1);
  });
});
