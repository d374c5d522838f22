import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { clawrun } from "../support/cli";
import { operatorGet } from "../support/messages";
import { printOutputOnFailure } from "../support/output-on-failure";

/**
 * `clawrun --agent` and the fleet status (docs/cli.md, "Several agents") as a child process
 * against the real production server running two echo agents: `clawrun` (the default, named
 * like the deployment) and `team`. The tests run in order and share the agents' state.
 */

let server: ClawrunServer;
printOutputOnFailure("the ClawRun server", () => server?.output());
const env = (extra: Record<string, string> = {}) => ({
  CLAWRUN_URL: server.url,
  ADMIN_SECRET: server.secrets.admin,
  CLAWRUN_WEBHOOK_SECRET: server.secrets.webhook,
  ...extra,
});
const run = (...args: string[]) => clawrun(args, env());
const json = <T>(stdout: string) => JSON.parse(stdout) as T;

interface FleetJson {
  agents: { name: string; isDefault: boolean; status: string; pending: number }[];
}
interface Overview {
  instance: { name: string; status: string };
}
interface Events {
  events: { type: string; details?: { messageId?: string } }[];
}

beforeAll(async () => {
  server = await startClawrun({
    config: { agents: { clawrun: {}, team: {} } },
    timings: { heartbeatIntervalMs: 500 },
  });
});
afterAll(async () => {
  await server?.stop();
});

describe("one CLI, two agents", () => {
  it("status without --agent is the fleet: one row per agent, the default marked", async () => {
    const r = await run("status");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^agent +status +since +pending +failed +awake today$/);
    expect(lines[1]).toMatch(/^clawrun \(default\) +uninitialized +never started +0 +0 +0 s$/);
    expect(lines[2]).toMatch(/^team +uninitialized +never started +0 +0 +0 s$/);
    const j = await run("status", "--json");
    expect(j.code).toBe(0);
    expect(json<FleetJson>(j.stdout).agents.map((a) => [a.name, a.isDefault])).toEqual([
      ["clawrun", true],
      ["team", false],
    ]);
  });

  it("send --agent team reaches team only: its reply, its events, its status", async () => {
    const sent = await run("send", "hello team", "--agent", "team", "--id", "t1", "--wait");
    expect(sent.stderr).toBe("");
    expect(sent.code).toBe(0);
    const [queued, reply] = sent.stdout.trim().split("\n");
    expect(queued).toBe("queued t1 (delivered after the wake)");
    expect(reply).toMatch(/^echo: hello team \(message #1 in "cli"/);

    // The --wait above read team's events through the CLI; the operator API agrees, and the
    // default agent saw nothing.
    const team = await operatorGet<Events>(server, "/api/agents/team/sandbox/events?limit=100");
    expect(team.events.some((e) => e.type === "message.delivered")).toBe(true);
    const events = await run("events", "--agent", "team", "--json");
    expect(events.stdout).toContain('"type":"message.replied"');
    expect((await run("events")).stdout).toBe("no events yet\n");

    const one = await run("status", "--agent", "team");
    expect(one.code).toBe(0);
    expect(one.stdout.split("\n")[0]).toMatch(/^running +awake since /);
    expect(one.stdout).toMatch(/^instance +clawrun--team · local sandbox · echo agent/m);
    const fleet = await run("status");
    expect(fleet.stdout).toMatch(/^clawrun \(default\) +uninitialized /m);
    expect(fleet.stdout).toMatch(/^team +running +\d\d:\d\d:\d\d \(\d+ s\)/m);
  });

  it("CLAWRUN_AGENT picks the agent, --agent overrides it", async () => {
    const byEnv = await clawrun(["status", "--json"], env({ CLAWRUN_AGENT: "team" }));
    expect(json<Overview>(byEnv.stdout).instance).toMatchObject({
      name: "clawrun--team",
      status: "running",
    });
    const byFlag = await clawrun(
      ["status", "--json", "--agent", "clawrun"],
      env({ CLAWRUN_AGENT: "team" }),
    );
    expect(json<Overview>(byFlag.stdout).instance).toMatchObject({
      name: "clawrun",
      status: "uninitialized",
    });
  });

  it("stop --agent team --wait puts team to sleep and leaves the default agent alone", async () => {
    const stop = await run("stop", "--agent", "team", "--wait");
    expect(stop.stderr).toBe("");
    expect(stop.code).toBe(0);
    expect(stop.stdout.trim().split("\n").at(-1)).toMatch(/^sleeping/);
    const { agents } = json<FleetJson>((await run("status", "--json")).stdout);
    expect(agents.map((a) => [a.name, a.status])).toEqual([
      ["clawrun", "uninitialized"],
      ["team", "sleeping"],
    ]);
  });

  it("an unknown agent: exit 1 with the server's 404 naming the agents", async () => {
    const stop = await run("stop", "--agent", "nobody");
    expect(stop.code).toBe(1);
    expect(stop.stderr).toContain('clawrun stop: no agent named "nobody"');
    expect(stop.stderr).toContain("clawrun, team");
    const send = await run("send", "hi", "--agent", "nobody", "--json");
    expect(send.code).toBe(1);
    expect(json<{ error: { code: string; message: string } }>(send.stdout).error).toMatchObject({
      code: "not_found",
      message: expect.stringContaining("clawrun, team"),
    });
  });

  it("an empty --agent is a usage error naming the flag, before any request", async () => {
    for (const args of [
      ["stop", "--agent", ""],
      ["status", "--agent="],
    ]) {
      const r = await clawrun(args, { CLAWRUN_URL: "http://127.0.0.1:9" });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain(`--agent needs an agent's name (got "")`);
    }
  });
});

describe("a server from before several agents", () => {
  // Only what an older ClawRun answers: no /api/agents (Next's own 404 page), the overview.
  let old: Server;
  let url: string;
  beforeAll(async () => {
    old = createServer((req, res) => {
      if (req.url === "/api/sandbox") {
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({
            now: Date.now(),
            instance: { name: "old", provider: "local", agent: "echo", status: "sleeping" },
            inbox: { pending: 0, dead: 0 },
          }),
        );
        return;
      }
      res.statusCode = 404;
      res.setHeader("content-type", "text/html");
      res.end("<!DOCTYPE html><title>404: This page could not be found.</title>");
    });
    await new Promise<void>((resolve) => old.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(old.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => old.close(() => resolve())));

  it("status falls back to the one agent's status; --agent says what is missing", async () => {
    const r = await clawrun(["status"], { CLAWRUN_URL: url, ADMIN_SECRET: "s".repeat(32) });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^sleeping +asleep/);
    const named = await clawrun(["stop", "--agent", "team"], {
      CLAWRUN_URL: url,
      ADMIN_SECRET: "s".repeat(32),
    });
    expect(named.code).toBe(1);
    expect(named.stderr).toContain("POST /api/agents/team/sandbox/stop answered HTTP 404");
    expect(named.stderr).toContain("knows several agents (--agent needs one)");
  });
});
