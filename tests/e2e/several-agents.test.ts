import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveKey, heartbeatSecret } from "../../src/protocol/derive-key";
import { signatureHeaders } from "../../src/protocol/signing";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { waitFor } from "../support/free-port";
import { operatorGet, sendMessage } from "../support/messages";
import { printOutputOnFailure } from "../support/output-on-failure";
import { startReplyReceiver } from "../support/reply-receiver";

/**
 * Several agents in one deployment (docs/several-agents.md), end to end against the production
 * server: three echo agents on the local provider, the one named like the deployment keeps the
 * old URLs and keys, the other two answer under their names, each with its own sandbox, count,
 * sleep and secret.
 */
let server: ClawrunServer;
printOutputOnFailure("the ClawRun server", () => server?.output());
let receiver: Awaited<ReturnType<typeof startReplyReceiver>>;

beforeAll(async () => {
  receiver = await startReplyReceiver(() => server.secrets.webhook);
  server = await startClawrun({
    config: {
      sandbox: { activeDuration: 600 },
      channels: { generic: { replyUrl: receiver.url } },
      agents: { clawrun: {}, team: {}, ops: { sandbox: { activeDuration: 3 } } },
    },
    timings: { heartbeatIntervalMs: 500 },
  });
});
afterAll(async () => {
  await server?.stop();
  await receiver?.stop();
});

const agentPath = (agent: string | null, path: string) =>
  agent ? `/api/agents/${agent}${path.replace(/^\/api/, "")}` : path;

const send = (agent: string | null, id: string, text: string) =>
  sendMessage(server, { id, conversation: "c", text }, agent ?? undefined);
const replyTo = (id: string) => receiver.replies.find((r) => r.inReplyTo === id);
const countOf = (id: string) => Number(/message #(\d+)/.exec(replyTo(id)?.text ?? "")?.[1]);
type Overview = { instance: { name: string; status: string; sandboxId: string | null } };
const overview = (agent: string | null) =>
  operatorGet<Overview>(server, agentPath(agent, "/api/sandbox"));

describe("several agents in one deployment", () => {
  it("wakes each agent by its own webhook URL; each counts only its own messages", async () => {
    const sent = await Promise.all([
      send(null, "d1", "hello default"),
      send("team", "t1", "hello team"),
      send("ops", "o1", "hello ops"),
    ]);
    expect(sent.map((s) => s.status)).toEqual([202, 202, 202]);
    await waitFor(
      "three replies",
      async () => replyTo("d1") && replyTo("t1") && replyTo("o1"),
      45_000,
    );
    expect([countOf("d1"), countOf("t1"), countOf("o1")]).toEqual([1, 1, 1]);
    // Awake: answered in the request, team's second message, whatever the others counted.
    const t2 = await send("team", "t2", "again");
    expect(t2.body).toMatchObject({ status: "delivered" });
    expect(String(t2.body.reply)).toContain("message #2");

    const views = await Promise.all([overview(null), overview("team"), overview("ops")]);
    expect(views.map((v) => v.instance.name)).toEqual(["clawrun", "clawrun--team", "clawrun--ops"]);
    const ids = views.map((v) => v.instance.sandboxId);
    expect(new Set(ids).size).toBe(3);
    // ops rests after 3 s idle, which a loaded machine can reach by now; the others rest in 10 min.
    expect(views.slice(0, 2).map((v) => v.instance.status)).toEqual(["running", "running"]);
  });

  it("lists the fleet in file order, each row its own state", async () => {
    const { agents } = await operatorGet<{
      agents: { name: string; isDefault: boolean; status: string; pending: number }[];
    }>(server, "/api/agents");
    expect(agents.map((a) => [a.name, a.isDefault])).toEqual([
      ["clawrun", true],
      ["team", false],
      ["ops", false],
    ]);
    expect(agents.every((a) => a.pending === 0)).toBe(true);
  });

  it("puts one agent to sleep on its own schedule while the others stay awake", async () => {
    await waitFor(
      "ops asleep",
      async () => (await overview("ops")).instance.status === "sleeping",
      30_000,
      200,
    );
    expect((await overview(null)).instance.status).toBe("running");
    expect((await overview("team")).instance.status).toBe("running");
    const woke = await send("ops", "o2", "wake up");
    expect(woke.status).toBe(202);
    await waitFor("the ops reply", async () => replyTo("o2"), 30_000);
    expect(countOf("o2")).toBe(2); // restored from its own snapshot
  });

  it("keeps each agent's snapshots its own: another agent's id is unknown in its routes", async () => {
    type Snaps = { snapshots: { id: string }[] };
    const ops = await operatorGet<Snaps>(server, agentPath("ops", "/api/sandbox/snapshots"));
    const mine = await operatorGet<Snaps>(server, agentPath(null, "/api/sandbox/snapshots"));
    const opsId = ops.snapshots[0]?.id as string;
    expect(opsId).toBeTruthy();
    expect(mine.snapshots.map((s) => s.id)).not.toContain(opsId);
    const del = await fetch(`${server.url}/api/sandbox/snapshots/${opsId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${server.secrets.admin}` },
    });
    expect(del.status).toBe(404);
    const after = await operatorGet<Snaps>(server, agentPath("ops", "/api/sandbox/snapshots"));
    expect(after.snapshots.map((s) => s.id)).toContain(opsId);
  });

  it("refuses a heartbeat signed for another agent, and accepts the agent's own", async () => {
    const team = (await overview("team")).instance.sandboxId as string;
    const body = (ts: number) =>
      JSON.stringify({
        sandboxId: team,
        lastChangedAt: ts,
        sandboxCreatedAt: ts - 1000,
        root: "/tmp",
        daemonStatus: "running",
        daemonRestarts: 0,
      });
    const post = (path: string, secret: string) => {
      const raw = body(Date.now());
      return fetch(`${server.url}${path}`, {
        method: "POST",
        body: raw,
        headers: { "content-type": "application/json", ...signatureHeaders(secret, raw) },
      });
    };
    const teamMaster = deriveKey(server.secrets.clawrun, "agent-secret/team").toString("base64url");
    // Signed with the default agent's keys, for team's sandbox: refused at team's URL.
    const forged = await post(
      "/agents/team/api/heartbeat",
      heartbeatSecret(server.secrets.clawrun, team),
    );
    const codeOf = async (r: Response) =>
      `${r.status} ${((await r.json()) as { error?: { code?: string } }).error?.code ?? "ok"}`;
    expect(await codeOf(forged)).toBe("401 unauthorized");
    // Signed with team's keys but sent to the default agent: refused there too.
    const misrouted = await post("/api/heartbeat", heartbeatSecret(teamMaster, team));
    expect(await codeOf(misrouted)).toBe("401 unauthorized");
    // The control: team's own key at team's URL verifies. It is a heartbeat, or "replayed" when
    // the sidecar's own heartbeat, signed a moment later, was recorded first (checked after the
    // signature, so it also proves the key).
    const own = await post("/agents/team/api/heartbeat", heartbeatSecret(teamMaster, team));
    expect(["200 ok", "401 replayed"]).toContain(await codeOf(own));
  });

  it("answers 404 naming the agents for an unknown one, and changes nothing", async () => {
    const res = await send("nobody", "n1", "hi");
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).toContain('no agent named \\"nobody\\"');
    expect(JSON.stringify(res.body)).toContain("clawrun, team, ops");
    const op = await fetch(`${server.url}/api/agents/nobody/sandbox`, {
      headers: { authorization: `Bearer ${server.secrets.admin}` },
    });
    expect(op.status).toBe(404);
  });
});
