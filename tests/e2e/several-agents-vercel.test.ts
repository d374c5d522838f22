import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { waitFor } from "../support/free-port";
import { operatorGet, sendMessage } from "../support/messages";
import { printOutputOnFailure } from "../support/output-on-failure";
import { startReplyReceiver } from "../support/reply-receiver";
import {
  startVercelSandboxEmulator,
  type VercelSandboxEmulator,
} from "../support/vercel-sandbox-emulator";

/**
 * Two agents on the Vercel provider (through the real SDK and the Sandbox API emulator): the
 * provider's credentials are the deployment's, so the second agent needs no VERCEL_TOKEN__TEAM,
 * and each agent's sandboxes carry its own instance tag.
 */
let emulator: VercelSandboxEmulator;
let receiver: Awaited<ReturnType<typeof startReplyReceiver>>;
let server: ClawrunServer;
printOutputOnFailure("the ClawRun server", () => server?.output());

beforeAll(async () => {
  emulator = await startVercelSandboxEmulator();
  receiver = await startReplyReceiver(() => server.secrets.webhook);
  server = await startClawrun({
    config: {
      sandbox: { provider: "vercel", activeDuration: 600 },
      channels: { generic: { replyUrl: receiver.url } },
      agents: { clawrun: {}, team: {} },
    },
    timings: { heartbeatIntervalMs: 500 },
    env: emulator.env,
  });
});
afterAll(async () => {
  await server?.stop();
  await receiver?.stop();
  await emulator?.close();
});

const replyTo = (id: string) => receiver.replies.find((r) => r.inReplyTo === id);
type Overview = { instance: { name: string; status: string; sandboxId: string | null } };

describe("several agents on the Vercel provider", () => {
  it("wakes both with the deployment's credentials, each in its own sandbox", async () => {
    expect((await sendMessage(server, { id: "a1", conversation: "c", text: "hi" })).status).toBe(
      202,
    );
    expect(
      (await sendMessage(server, { id: "b1", conversation: "c", text: "hi" }, "team")).status,
    ).toBe(202);
    await waitFor("both replies", async () => replyTo("a1") && replyTo("b1"), 60_000, 100);
    expect(replyTo("b1")?.text).toContain("message #1");
    const mine = await operatorGet<Overview>(server, "/api/sandbox");
    const team = await operatorGet<Overview>(server, "/api/agents/team/sandbox");
    expect(team.instance.name).toBe("clawrun--team");
    expect(team.instance.status).toBe("running");
    expect(team.instance.sandboxId).not.toBe(mine.instance.sandboxId);
  });
});
