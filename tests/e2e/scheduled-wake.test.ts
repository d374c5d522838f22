import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { type FakeQStash, startFakeQStash } from "../support/fake-qstash";
import { waitFor } from "../support/free-port";

/**
 * A cron job wakes a sleeping agent with no timer in the server (CLAWRUN_LOCAL_TICK=0, as on
 * Vercel): a dashboard view runs the lazy tick, which plans a one-shot wake through QStash's
 * publish API; QStash calls /api/cron at that time, signed; the real Receiver verifies it and
 * the agent wakes and gets the job's message at its due time (docs/deploy.md, "Scheduled wakes").
 */

const EVERY_20_S = "*/20 * * * * *";
let qstash: FakeQStash;
let server: ClawrunServer;

beforeAll(async () => {
  qstash = await startFakeQStash();
  server = await startClawrun({
    config: {
      sandbox: { cronWakeLeadTime: 1 },
      cron: [{ name: "ping", schedule: EVERY_20_S, message: "scheduled hello" }],
    },
    env: { ...qstash.env, CLAWRUN_LOCAL_TICK: "0" },
  });
});

afterAll(async () => {
  await server?.stop();
  await qstash?.close();
});

async function operator<T>(path: string): Promise<T> {
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${server.secrets.admin}` },
  });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

type Events = { events: { type: string; at: number; message: string; details?: unknown }[] };

describe("scheduled wakes through QStash", () => {
  it("refuses /api/cron without a verified QStash signature or the cron secret", async () => {
    const cronUrl = `${server.url}/api/cron`;
    const body = JSON.stringify({ reason: "scheduled wake", at: 0 });
    const post = (headers: Record<string, string>) =>
      fetch(cronUrl, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
    const unsigned = await post({});
    expect(unsigned.status).toBe(401);
    expect((await unsigned.json()).error.message).toContain("missing Upstash-Signature header");
    const forged = await post({
      "upstash-signature": await qstash.sign(cronUrl, body, "sig_not_the_projects_key"),
    });
    expect(forged.status).toBe(401);
    const otherBody = await post({
      "upstash-signature": await qstash.sign(cronUrl, "{}"),
    });
    expect(otherBody.status).toBe(401);
    expect((await otherBody.json()).error.message).toMatch(/body hash does not match/);
    expect((await fetch(cronUrl)).status).toBe(401);
    const nextKey = await post({
      "upstash-signature": await qstash.sign(cronUrl, body, qstash.nextSigningKey),
    });
    expect(nextKey.status).toBe(202);
  });

  it("plans a wake for the job's due time and the agent gets the message then", async () => {
    // A dashboard view: with no timer, this runs the reconcile tick after the response.
    await operator("/api/sandbox");
    const first = await waitFor(
      "a wake published to QStash",
      async () => qstash.published.find((p) => p.notBefore !== null),
      20_000,
    );
    expect(first.destination).toBe(`${server.url}/api/cron`);
    expect(JSON.parse(first.body)).toMatchObject({ reason: "scheduled wake" });
    const wakeAt = JSON.parse(first.body).at as number;
    // The job runs every 20 s; the wake is planned the lead time (1 s) before it.
    const dueAt = wakeAt + 1_000;
    expect(dueAt % 20_000).toBe(0);
    expect(first.notBefore).toBe(Math.ceil(wakeAt / 1000));

    const delivered = await waitFor(
      "the job's message delivered to the agent",
      async () =>
        (await operator<Events>("/api/sandbox/events?limit=200")).events.find(
          (e) => e.type === "message.delivered" && e.message.includes(`cron:ping:${dueAt}`),
        ),
      60_000,
      250,
    );
    // QStash called at (not before) the planned time, and ClawRun accepted the signed call.
    const call = qstash.deliveries.find((d) => d.messageId === first.messageId);
    expect(call?.status).toBe(202);
    expect(call?.at).toBeGreaterThanOrEqual(wakeAt);
    expect(delivered.at).toBeGreaterThanOrEqual(dueAt);
    const overview = await operator<{ instance: { status: string } }>("/api/sandbox");
    expect(overview.instance.status).toBe("running");
    // Once running, the next wake is planned for the due time itself (re-planned on the change).
    expect(qstash.published.some((p) => JSON.parse(p.body).at === dueAt)).toBe(true);
  }, 90_000);
});
