import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_PORTS } from "../../src/protocol/constants";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { waitFor } from "../support/free-port";
import { eventsOf, instanceStatus, operatorGet, sendMessage } from "../support/messages";
import { startReplyReceiver } from "../support/reply-receiver";
import {
  startVercelSandboxEmulator,
  type VercelSandboxEmulator,
} from "../support/vercel-sandbox-emulator";

/**
 * The sleep → wake loop of tests/e2e/wake-on-message.test.ts with `sandbox.provider:
 * "vercel"`, in both modes: the production server drives the real SDK against the Vercel
 * Sandbox API emulator, behind which real processes run (the sidecar, the echo agent).
 */
let emulator: VercelSandboxEmulator;
let receiver: Awaited<ReturnType<typeof startReplyReceiver>>;
let server: ClawrunServer | null = null;

beforeAll(async () => {
  emulator = await startVercelSandboxEmulator();
  receiver = await startReplyReceiver(() => server?.secrets.webhook ?? "");
});
afterAll(async () => {
  await server?.stop();
  await receiver?.stop();
  await emulator?.close();
});

const countOf = (text: string) => Number(/message #(\d+)/.exec(text)?.[1]);
const replyTo = (id: string) => receiver.replies.find((r) => r.inReplyTo === id);

describe.each(["snapshot", "persistent"] as const)("vercel provider, %s mode", (mode) => {
  beforeAll(async () => {
    await server?.stop();
    server = await startClawrun({
      config: {
        instance: { name: `e2e-${mode}` },
        sandbox: { provider: "vercel", activeDuration: 3, vercel: { mode } },
        channels: { generic: { replyUrl: receiver.url } },
      },
      timings: { heartbeatIntervalMs: 500 },
      env: emulator.env,
    });
  });
  const srv = () => server as ClawrunServer;

  it("wakes a never-started agent for a message and posts its reply", async () => {
    const id = `${mode}-first`;
    const res = await sendMessage(srv(), { id, conversation: "alice", text: "hello" });
    expect(res).toEqual({ status: 202, body: { status: "queued", id } });
    await waitFor("the reply", async () => replyTo(id), 60_000);
    expect(countOf(replyTo(id)?.text ?? "")).toBe(1);
    const second = await sendMessage(srv(), {
      id: `${mode}-second`,
      conversation: "alice",
      text: "again",
    });
    expect(second.status).toBe(200);
    expect(countOf(String(second.body.reply))).toBe(2);
  });

  it("sleeps when idle and wakes with the conversation intact", async () => {
    await waitFor(
      "sleeping",
      async () => (await instanceStatus(srv())) === "sleeping",
      60_000,
      100,
    );
    const state = await operatorGet<{
      instance: { snapshotId: string | null; savedSandboxId: string | null };
    }>(srv(), "/api/sandbox");
    if (mode === "snapshot") expect(state.instance.snapshotId).toBeTruthy();
    else expect(state.instance.savedSandboxId).toBe(`clawrun-e2e-${mode}`);

    const id = `${mode}-after-sleep`;
    expect(
      (await sendMessage(srv(), { id, conversation: "alice", text: "still there?" })).status,
    ).toBe(202);
    await waitFor("the reply", async () => replyTo(id), 60_000);
    expect(countOf(replyTo(id)?.text ?? "")).toBe(3);
    const running = (await eventsOf(srv(), "status.running"))[0];
    if (mode === "snapshot") expect(running?.details.restoredFrom).toBe(state.instance.snapshotId);
    else expect(running?.details.resumed).toBe(true);
    expect(emulator.unknownRequests).toEqual([]);
    expect(emulator.faults).toEqual([]);
    // Only the sidecar's door is routed: ClawRun reaches the daemon through it, never directly.
    const routed = [...emulator.service.sandboxes.values()].map((sb) => sb.ports);
    expect(routed.length).toBeGreaterThan(0);
    for (const ports of routed) expect(ports).toEqual([SANDBOX_PORTS.sidecar]);
  });
});
