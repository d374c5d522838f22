import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { channelsCli } from "../../support/channels-cli";
import { type ClawrunServer, startClawrun } from "../../support/clawrun-server";
import { waitFor } from "../../support/free-port";
import { eventsOf, instanceStatus } from "../../support/messages";
import { printOutputOnFailure } from "../../support/output-on-failure";
import {
  type FakeWhatsapp,
  messagesPayload,
  startFakeWhatsapp,
  statusUpdate,
  textMessage,
} from "../../support/platforms/whatsapp";

/**
 * WhatsApp end to end against the production server (local provider, real sidecar, echo
 * agent): ClawRun subscribes the app's webhook with the fake Graph API, which verifies the
 * callback with a hub challenge and then delivers signed webhooks as Meta does, recording
 * the typing indicators and replies.
 */
let server: ClawrunServer;
printOutputOnFailure("the ClawRun server", () => server?.output());
let fake: FakeWhatsapp;
const PN = "106540352242922";
const WABA = "102290129340398";

beforeAll(async () => {
  fake = await startFakeWhatsapp();
  server = await startClawrun({
    config: {
      sandbox: { activeDuration: 120 },
      channels: {
        whatsapp: {
          apiBaseUrl: fake.url,
          apiVersion: fake.version,
          appId: fake.appId,
          businessAccountId: WABA,
        },
      },
    },
    timings: { heartbeatIntervalMs: 500 },
    env: {
      WHATSAPP_ACCESS_TOKEN: fake.accessToken,
      WHATSAPP_APP_SECRET: fake.appSecret,
      WHATSAPP_VERIFY_TOKEN: "a-verify-token-typed-into-meta",
    },
  });
});
afterAll(async () => {
  await server?.stop();
  await fake?.stop();
});

const countOf = (text: string) => Number(/message #(\d+)/.exec(text)?.[1]);
const repliesTo = (waId: string) => fake.sentTexts().filter((t) => t.to === waId);
/** Puts the agent to sleep now (operator stop), so no idle timer can fire in the middle of a test. */
async function sleepNow(): Promise<void> {
  const res = await fetch(`${server.url}/api/sandbox/stop`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.secrets.admin}` },
  });
  expect(res.status).toBe(202);
  await waitFor(
    "status sleeping",
    async () => (await instanceStatus(server)) === "sleeping",
    60_000,
    100,
  );
}
const message = (from: string, wamid: string, text: string) =>
  messagesPayload(PN, [textMessage(from, wamid, text)]);

describe("WhatsApp (end to end)", () => {
  it("registers: subscribes the app (Meta verifies the hub challenge against the server) and the WABA", async () => {
    const r = await channelsCli(server, ["register", "whatsapp"]);
    expect(r, r.stderr).toMatchObject({ code: 0 });
    expect(r.stdout).toContain(
      `whatsapp: registered: Meta sends WhatsApp messages to ${server.url}/api/webhooks/whatsapp`,
    );
    expect(fake.subscription).toEqual({
      callback_url: `${server.url}/api/webhooks/whatsapp`,
      fields: ["messages"],
      active: true,
    });
    expect(fake.subscribedWabas).toEqual([WABA]);
    expect((await channelsCli(server, ["status", "whatsapp"])).stdout).toContain(
      "whatsapp: webhook registered",
    );
  });

  it("acknowledges a message to the sleeping agent at once, shows typing on it, then answers the sender", async () => {
    expect(await instanceStatus(server)).not.toBe("running");
    const res = await fake.deliver(message("4915100000101", "wamid.first", "hello"));
    expect(res).toEqual({ status: 200, body: "" });
    expect(repliesTo("4915100000101")).toEqual([]); // acknowledged before the agent answered
    await waitFor("the reply", async () => repliesTo("4915100000101")[0], 60_000, 100);
    const reply = repliesTo("4915100000101")[0];
    expect(reply).toMatchObject({ phoneNumberId: PN });
    expect(reply?.body).toMatch(/^echo: hello \(message #1 in "whatsapp:4915100000101"/);
    const typingAt = fake.calls.findIndex(
      (c) => c.params.status === "read" && c.params.message_id === "wamid.first",
    );
    const replyAt = fake.calls.findIndex(
      (c) => c.params.type === "text" && c.params.to === "4915100000101",
    );
    expect(typingAt).toBeGreaterThanOrEqual(0);
    expect(typingAt).toBeLessThan(replyAt);
    expect(fake.calls[typingAt]?.params.typing_indicator).toEqual({ type: "text" });
  });

  it("delivers a platform retry of the same message once, and ignores status callbacks", async () => {
    const payload = message("4915100000102", "wamid.retry", "once");
    expect((await fake.deliver(payload)).status).toBe(200);
    expect((await fake.deliver(payload)).status).toBe(200);
    await waitFor("the reply", async () => repliesTo("4915100000102")[0], 60_000, 100);
    const status = messagesPayload(PN, [], [statusUpdate("4915100000102", "wamid.sent", "read")]);
    expect((await fake.deliver(status)).status).toBe(200);
    expect((await fake.deliver(payload)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(repliesTo("4915100000102").map((t) => countOf(t.body))).toEqual([1]);
  });

  it("wakes once for a burst of 20 messages from two people (some batched) and answers each in order", async () => {
    await sleepNow();
    const creatingBefore = (await eventsOf(server, "status.creating")).length;
    const people = ["4915100000201", "4915100000202"];
    await Promise.all(
      people.map(async (from, p) => {
        for (let i = 1; i <= 10; i += 2) {
          // Meta may batch: every other webhook carries two messages of the same person.
          const batch = messagesPayload(PN, [
            textMessage(from, `wamid.b${p}-${i}`, `m${i}`),
            textMessage(from, `wamid.b${p}-${i + 1}`, `m${i + 1}`),
          ]);
          const single = [
            message(from, `wamid.b${p}-${i}`, `m${i}`),
            message(from, `wamid.b${p}-${i + 1}`, `m${i + 1}`),
          ];
          for (const payload of i % 4 === 1 ? [batch] : single)
            expect((await fake.deliver(payload)).status).toBe(200);
        }
      }),
    );
    await waitFor(
      "20 replies",
      async () => people.every((id) => repliesTo(id).length >= 10),
      90_000,
      200,
    );
    expect((await eventsOf(server, "status.creating")).length - creatingBefore).toBe(1);
    for (const from of people) {
      const bodies = repliesTo(from).map((t) => t.body);
      expect(bodies.map(countOf)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(bodies.map((b) => /^echo: (m\d+)/.exec(b)?.[1])).toEqual(
        Array.from({ length: 10 }, (_, i) => `m${i + 1}`),
      );
    }
  });

  it("answers a forged webhook 401 and a wrong verify token 403", async () => {
    const res = await fetch(`${server.url}/api/webhooks/whatsapp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-hub-signature-256": `sha256=${"0".repeat(64)}`,
      },
      body: JSON.stringify(message("4915100000301", "wamid.forged", "forged")),
    });
    expect(res.status).toBe(401);
    const hub = await fetch(
      `${server.url}/api/webhooks/whatsapp?hub.mode=subscribe&hub.challenge=1&hub.verify_token=wrong`,
    );
    expect(hub.status).toBe(403);
    await new Promise((r) => setTimeout(r, 500));
    expect(repliesTo("4915100000301")).toEqual([]);
  });
});
