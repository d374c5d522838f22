import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../../support/clawrun-server";
import { waitFor } from "../../support/free-port";
import { eventsOf, instanceStatus } from "../../support/messages";
import { printOutputOnFailure } from "../../support/output-on-failure";
import {
  APPLICATION_ID,
  type FakeDiscord,
  type IssuedInteraction,
  startFakeDiscord,
} from "../../support/platforms/discord";
import { sleepNow } from "../../support/sleep-now";

/**
 * Discord end to end against the production server (local provider, real sidecar, echo
 * agent): a stand-in for Discord sends signed interactions and receives the API calls.
 */
let server: ClawrunServer;
printOutputOnFailure("the ClawRun server", () => server?.output());
let discord: FakeDiscord;
let webhook: string;
const ALICE = "710000000000000001";

beforeAll(async () => {
  discord = await startFakeDiscord();
  server = await startClawrun({
    config: {
      sandbox: { activeDuration: 600 },
      channels: {
        discord: {
          apiBaseUrl: discord.apiBaseUrl,
          applicationId: APPLICATION_ID,
          publicKey: discord.publicKeyHex,
        },
      },
    },
    timings: { heartbeatIntervalMs: 500 },
    env: { DISCORD_BOT_TOKEN: discord.botToken },
  });
  webhook = `${server.url}/api/webhooks/discord`;
});
afterAll(async () => {
  await server?.stop();
  await discord?.stop();
});

const countOf = (text: string) => Number(/message #(\d+)/.exec(text)?.[1]);
const issued = (id: string) => discord.interactions.find((x) => x.id === id) as IssuedInteraction;
const answered = (id: string) => async () => issued(id).original;

describe("Discord end to end", () => {
  it("answers PING with PONG", async () => {
    expect(await discord.deliver(webhook, discord.ping())).toMatchObject({
      status: 200,
      body: { type: 1 },
    });
  });

  it("/ask to a sleeping agent: a deferred response at once (thinking…), then the reply replaces it", async () => {
    expect(await instanceStatus(server)).not.toBe("running");
    const i = discord.ask({ channelId: "800000000000000001", userId: ALICE, text: "hello" });
    const res = await discord.deliver(webhook, i);
    expect(res).toMatchObject({ status: 200, body: { type: 5 } });
    expect(res.ms).toBeLessThan(5_000); // generous; the real number is in the bench
    const original = await waitFor("the reply", answered(i.id), 60_000, 50);
    expect(original.content).toMatch(
      /^echo: hello \(message #1 in "discord:800000000000000001:710000000000000001"/,
    );
    expect(issued(i.id).followUps).toEqual([]);
    expect(await instanceStatus(server)).toBe("running");
  });

  it("the same interaction delivered again reaches the agent once", async () => {
    const i = discord.ask({ channelId: "800000000000000002", userId: ALICE, text: "only once" });
    expect((await discord.deliver(webhook, i)).status).toBe(200);
    expect(await discord.deliver(webhook, i)).toMatchObject({ status: 200, body: { type: 5 } });
    const first = await waitFor("the reply", answered(i.id), 30_000, 50);
    const next = discord.ask({ channelId: "800000000000000002", userId: ALICE, text: "next" });
    await discord.deliver(webhook, next);
    const second = await waitFor("the next reply", answered(next.id), 30_000, 50);
    expect(countOf(second.content)).toBe(countOf(first.content) + 1);
    // An edit that reached the fake before it recorded the deferred response got Discord's
    // "Unknown Message" and was retried (discord-channel.ts): only the edits that took count.
    const edits = discord.calls.filter(
      (c) => c.method === "PATCH" && c.path.includes(`/${i.token}/`) && c.status === 200,
    );
    expect(edits).toHaveLength(1);
  });

  it("a burst of 20 /ask across two channels to a sleeping agent: one wake, 20 replies in order per channel", async () => {
    await sleepNow(server);
    const creatingBefore = (await eventsOf(server, "status.creating")).length;
    const channels = ["800000000000000010", "800000000000000011"];
    const sent = new Map<string, string[]>(channels.map((c) => [c, []]));
    await Promise.all(
      channels.map(async (channelId) => {
        for (let k = 1; k <= 10; k++) {
          const i = discord.ask({ channelId, userId: ALICE, text: `m${k}` });
          sent.get(channelId)?.push(i.id);
          expect(await discord.deliver(webhook, i)).toMatchObject({
            status: 200,
            body: { type: 5 },
          });
        }
      }),
    );
    const all = [...sent.values()].flat();
    await waitFor("20 replies", async () => all.every((id) => issued(id).original), 90_000, 100);
    expect((await eventsOf(server, "status.creating")).length - creatingBefore).toBe(1);
    for (const ids of sent.values()) {
      const contents = ids.map((id) => issued(id).original?.content ?? "");
      expect(contents.map((c) => /^echo: (m\d+) /.exec(c)?.[1])).toEqual(
        Array.from({ length: 10 }, (_, k) => `m${k + 1}`),
      );
      expect(contents.map(countOf)).toEqual(Array.from({ length: 10 }, (_, k) => k + 1));
      // Delivered in order: each reply was edited in after the one before it.
      const times = ids.map((id) => issued(id).original?.at ?? 0);
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    }
  });
});
