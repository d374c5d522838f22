import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../../tests/support/free-port";
import { type FakeWhatsapp, startFakeWhatsapp } from "../../../../tests/support/platforms/whatsapp";
import { GraphApi, GraphApiError } from "./graph-api";

let fake: FakeWhatsapp;
let api: GraphApi;
const signal = () => AbortSignal.timeout(5_000);

beforeAll(async () => {
  fake = await startFakeWhatsapp();
  api = new GraphApi({ baseUrl: fake.url, version: fake.version, accessToken: fake.accessToken });
});
afterAll(() => fake?.stop());

async function failure(p: Promise<unknown>): Promise<GraphApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GraphApiError);
  return err as GraphApiError;
}

describe("GraphApi against the fake Graph API", () => {
  it("sends a text message with the Bearer token and returns its wamid", async () => {
    const wamid = await api.sendText(
      { phoneNumberId: "1065403522", to: "4915112345678", body: "hi" },
      signal(),
    );
    expect(wamid).toMatch(/^wamid\./);
    const call = fake.calls.at(-1);
    expect(call).toMatchObject({
      method: "POST",
      path: "/1065403522/messages",
      authorization: `Bearer ${fake.accessToken}`,
    });
    expect(call?.params).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "4915112345678",
      type: "text",
      text: { preview_url: false, body: "hi" },
    });
  });

  it("shows the typing indicator on a received message", async () => {
    await api.typing({ phoneNumberId: "1065403522", wamid: "wamid.ABC" }, signal());
    expect(fake.typing().at(-1)).toEqual({ messageId: "wamid.ABC", phoneNumberId: "1065403522" });
  });

  it("reads the Graph error code, details and a Retry-After header", async () => {
    fake.failSends({ status: 400, code: 130429, message: "Rate limit hit", retryAfterS: 3 });
    const err = await failure(
      api.sendText({ phoneNumberId: "1", to: "4915112345678", body: "x" }, signal()),
    );
    expect(err).toMatchObject({
      httpStatus: 400,
      graphCode: 130429,
      detail: "Rate limit hit",
      retryAfterMs: 3000,
    });
  });

  it("reports an invalid token (190) without the token", async () => {
    const bad = new GraphApi({
      baseUrl: fake.url,
      version: fake.version,
      accessToken: "EAAGnotthetoken0000000",
    });
    const err = await failure(
      bad.sendText({ phoneNumberId: "1", to: "4915112345678", body: "x" }, signal()),
    );
    expect(err).toMatchObject({ httpStatus: 401, graphCode: 190 });
    expect(err.message).not.toContain("EAAGnotthetoken");
  });

  it("reports an unreachable server as status 0", async () => {
    const down = new GraphApi({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      version: "v24.0",
      accessToken: "x".repeat(30),
    });
    expect(
      await failure(down.typing({ phoneNumberId: "1", wamid: "wamid.X" }, signal())),
    ).toMatchObject({ httpStatus: 0 });
  });

  it("reads the app's webhook subscriptions with the app token", async () => {
    expect(
      await api.appSubscriptions({ appId: fake.appId, appSecret: fake.appSecret }, signal()),
    ).toEqual([]);
    const wrong = await failure(
      api.appSubscriptions({ appId: fake.appId, appSecret: "not-the-secret" }, signal()),
    );
    expect(wrong.graphCode).toBe(190);
  });

  it("subscribes the app to a business account", async () => {
    await api.subscribeWaba("102290129340398", signal());
    expect(fake.subscribedWabas).toEqual(["102290129340398"]);
  });
});
