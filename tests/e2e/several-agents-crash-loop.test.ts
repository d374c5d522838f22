import { afterAll, beforeAll, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { crashingAgent } from "../support/fault-agents";
import { waitFor } from "../support/free-port";
import { operatorGet, sendMessage } from "../support/messages";
import { printOutputOnFailure } from "../support/output-on-failure";

/**
 * Issue 25, isolation: one agent whose daemon crash-loops (the sidecar restarts it until it
 * gives up, the tick retries the wake after a back-off, again and again) while another agent of
 * the same deployment answers every message it gets, inline, as if the broken one did not
 * exist: the lifecycle lock, the tick and the drain are per agent. Production server, local
 * provider.
 */
let server: ClawrunServer;
printOutputOnFailure("the ClawRun server", () => server?.output());

beforeAll(async () => {
  server = await startClawrun({
    config: {
      sandbox: { activeDuration: 600 },
      agents: { clawrun: {}, broken: { agent: crashingAgent } },
    },
    // Retries of the failed wake come back every few seconds, so the crash loop goes on
    // through the whole test.
    timings: { heartbeatIntervalMs: 500, tickIntervalMs: 1_000, failedRetryBaseMs: 1_000 },
  });
});
afterAll(async () => {
  await server?.stop();
});

type Row = { name: string; status: string; error: string | null; pending: number };
const rows = async () => (await operatorGet<{ agents: Row[] }>(server, "/api/agents")).agents;
const row = async (name: string) => (await rows()).find((r) => r.name === name) as Row;
type StartEvent = { type: string; message: string };
const brokenEvents = async (type: string) =>
  (
    await operatorGet<{ events: StartEvent[] }>(
      server,
      "/api/agents/broken/sandbox/events?limit=200",
    )
  ).events.filter((e) => e.type === type);
const failures = () => brokenEvents("status.failed");

it("answers one agent's messages inline while another crash-loops, and keeps the broken one's message", async () => {
  expect(
    (await sendMessage(server, { id: "b1", conversation: "b", text: "hi" }, "broken")).status,
  ).toBe(202);
  // The healthy agent wakes for its first message, then answers each next one in the request.
  expect((await sendMessage(server, { id: "h0", conversation: "h", text: "wake" })).status).toBe(
    202,
  );
  await waitFor(
    "the healthy agent awake",
    async () => (await row("clawrun")).status === "running",
    45_000,
    200,
  );

  let answered = 0;
  let during = 0;
  // Until the broken agent has failed to start and the tick has begun its retry (a second
  // crash loop; the sidecar takes ~10 s to give up on each), keep talking to the healthy one.
  await waitFor(
    "a failed start of the broken agent and its retry, while the healthy one answers",
    async () => {
      const res = await sendMessage(server, {
        id: `h${++answered}`,
        conversation: "h",
        text: "again",
      });
      expect(res.body).toMatchObject({ status: "delivered" });
      if ((await row("broken")).status !== "failed") during++;
      return (await failures()).length >= 1 && (await brokenEvents("status.creating")).length >= 2;
    },
    90_000,
    300,
  );
  expect(answered).toBeGreaterThan(1);
  expect(during, "messages answered while the broken agent was mid-start").toBeGreaterThan(0);

  const broken = await row("broken");
  expect(broken.pending).toBe(1); // the message waits; nothing was lost
  expect((await failures())[0]?.message).toMatch(/restart|exit|fail/i);
  const healthy = await row("clawrun");
  expect(healthy).toMatchObject({ status: "running", error: null, pending: 0 });
});
