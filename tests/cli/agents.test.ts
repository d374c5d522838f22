import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalProvider } from "../../src/server/providers/local/local-provider";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { clawrun } from "../support/cli";
import { operatorGet } from "../support/messages";
import { printOutputOnFailure } from "../support/output-on-failure";

/**
 * `clawrun agents list|add|rm` (docs/cli.md) as a child process editing a real clawrun.json:
 * the file it writes, the file it leaves alone when it refuses, and for `rm` a real server
 * running three echo agents whose sandboxes and snapshots are looked at on disk. That server
 * starts with the file, so it boots while the file tests (which do not use it) run.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A temp directory with clawrun.json holding `text`; the CLI runs there. */
function project(text: string | null) {
  const dir = mkdtempSync(join(tmpdir(), "clawrun-agents-"));
  dirs.push(dir);
  const path = join(dir, "clawrun.json");
  if (text !== null) writeFileSync(path, text);
  const run = (...args: string[]) => clawrun(args, {}, { cwd: dir });
  return { dir, path, run, read: () => readFileSync(path, "utf8") };
}

const single = `{"instance":{"name":"home"},"channels":{"generic":{},"telegram":{}}}`;

/** The deployment of the second describe, started with the file so it boots during the first. */
let starting: Promise<ClawrunServer> | undefined;
beforeAll(() => {
  starting = startClawrun({
    config: { agents: { clawrun: {}, team: {}, extra: {} } },
    timings: { heartbeatIntervalMs: 500 },
  });
  starting.catch(() => undefined); // reported by the describe that awaits it
});
afterAll(async () => {
  await (await starting?.catch(() => undefined))?.stop();
});

describe("clawrun agents on this machine's clawrun.json", () => {
  it("list: one row per agent with its type, webhooks and variables; --json is one document", async () => {
    const p = project(
      JSON.stringify({
        instance: { name: "home" },
        channels: { generic: {}, telegram: {} },
        agents: { home: {}, "team-bot": { agent: { type: "openclaw" } } },
      }),
    );
    const [r, j] = await Promise.all([p.run("agents", "list"), p.run("agents", "list", "--json")]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n")).toEqual([
      "agent           type      webhooks                          variables",
      "home (default)  echo      /api/webhooks/<channel>           TELEGRAM_BOT_TOKEN",
      "team-bot        openclaw  /api/webhooks/<channel>/team-bot  TELEGRAM_BOT_TOKEN__TEAM_BOT",
    ]);
    expect(j.code).toBe(0);
    const doc = JSON.parse(j.stdout) as {
      config: string;
      agents: { name: string; channels: { webhookPath: string; env: string[] }[] }[];
    };
    expect(doc.config).toBe(p.path);
    expect(doc.agents[1]?.channels[1]).toEqual({
      name: "telegram",
      webhookPath: "/api/webhooks/telegram/team-bot",
      env: ["TELEGRAM_BOT_TOKEN__TEAM_BOT"],
    });
  });

  it("add to a one-agent file keeps that agent as instance.name, writes 2-space JSON, says what next", async () => {
    const p = project(single);
    const r = await clawrun(
      ["agents", "add", "team"],
      { CLAWRUN_URL: "https://bot.example" },
      {
        cwd: p.dir,
      },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(p.read()).toBe(
      `${JSON.stringify(
        {
          instance: { name: "home" },
          channels: { generic: {}, telegram: {} },
          agents: { home: {}, team: {} },
        },
        null,
        2,
      )}\n`,
    );
    expect(r.stdout).toContain(`added agent "team" (echo) to ${p.path}`);
    expect(r.stdout).toContain("the existing agent is now agents.home");
    expect(r.stdout).toContain(
      "telegram: https://bot.example/api/webhooks/telegram/team (set TELEGRAM_BOT_TOKEN__TEAM)",
    );
    expect(r.stdout).toContain("redeploy a Vercel deployment");
    // The server's own check agrees with the file written.
    const check = await p.run("config", "check");
    expect(check.stdout).toContain("ok:");
  });

  it("CLAWRUN_CONFIG names the file, as for config check; --type and --copy-from", async () => {
    const p = project(null);
    const elsewhere = join(p.dir, "deploy.json");
    writeFileSync(
      elsewhere,
      JSON.stringify({ agents: { a: { sandbox: { activeDuration: 60 } } } }),
    );
    const r = await clawrun(
      ["agents", "add", "b", "--copy-from", "a", "--type", "echo"],
      {
        CLAWRUN_CONFIG: "deploy.json",
      },
      { cwd: p.dir },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(elsewhere, "utf8")).agents).toEqual({
      a: { sandbox: { activeDuration: 60 } },
      b: { sandbox: { activeDuration: 60 }, agent: { type: "echo" } },
    });
  });

  it.each([
    [["agents", "add", "home"], 'an agent named "home" already exists (agents: home)'],
    [["agents", "add", "Team_1"], '"Team_1" is not an agent name: expected 1-32 lowercase'],
    [
      ["agents", "add", "x", "--type", "bogus"],
      '--type: expected one of echo, command, openclaw, zeroclaw (got "bogus")',
    ],
    [["agents", "add", "x", "--copy-from", "nobody"], '--copy-from: no agent named "nobody"'],
    [
      ["agents", "add", "worker", "--type", "command"],
      "agents.worker: agent.command: expected the daemon's executable",
    ],
    [["agents", "rm", "home"], '"home" is the only agent'],
    [["agents", "rm", "home", "--agent", "home"], "not with --agent"],
  ])("%j: exit 2 naming the problem, the file unchanged", async (args, message) => {
    const p = project(single);
    const r = await p.run(...args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
    expect(p.read()).toBe(single);
  });

  it("rm --offline edits the file without the deployment and warns about a running sandbox", async () => {
    const p = project(
      JSON.stringify({ instance: { name: "home" }, agents: { home: {}, team: {} } }),
    );
    const r = await clawrun(
      ["agents", "rm", "home", "--offline"],
      { CLAWRUN_URL: "http://127.0.0.1:9" },
      {
        cwd: p.dir,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      '--offline: the deployment was not asked; if "home" has a sandbox running, stop it by hand',
    );
    expect(r.stdout).toContain('now go to "team"');
    expect(JSON.parse(p.read())).toEqual({ instance: { name: "home" }, agents: { team: {} } });
  });

  it("a file with comments is not rewritten (they would be lost)", async () => {
    const text = `{\n  // the bot\n  "instance": { "name": "home" }\n}\n`;
    const p = project(text);
    const [r, list] = await Promise.all([p.run("agents", "add", "team"), p.run("agents", "list")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("has comments, which rewriting it would drop; nothing changed");
    expect(p.read()).toBe(text);
    // Reading it is fine: the server accepts comments.
    expect(list.code).toBe(0);
  });
});

describe("clawrun agents rm against a running deployment", () => {
  let server: ClawrunServer;
  printOutputOnFailure("the ClawRun server", () => server?.output());
  const env = (extra: Record<string, string> = {}) => ({
    CLAWRUN_URL: server.url,
    ADMIN_SECRET: server.secrets.admin,
    CLAWRUN_WEBHOOK_SECRET: server.secrets.webhook,
    CLAWRUN_CONFIG: server.env.CLAWRUN_CONFIG as string,
    ...extra,
  });
  const run = (...args: string[]) => clawrun(args, env());
  const fileAgents = () =>
    Object.keys(JSON.parse(readFileSync(server.env.CLAWRUN_CONFIG as string, "utf8")).agents);
  /** The agent's own local sandboxes and snapshots, on disk (docs/several-agents.md). */
  const onDisk = async (name: string) => {
    const provider = new LocalProvider({
      stateDir: join(server.stateDir, "agents", name),
      logger: pino({ level: "silent" }),
    });
    const sandboxes = await provider.list();
    return {
      running: sandboxes.filter((s) => s.status !== "stopped").length,
      snapshots: (await provider.listSnapshots()).length,
    };
  };
  interface Overview {
    instance: { status: string };
  }

  beforeAll(async () => {
    server = await (starting as Promise<ClawrunServer>);
    // Wake both agents to be removed (each its own sandbox, side by side): each has one running.
    await Promise.all(
      ["team", "extra"].map(async (name) => {
        const sent = await run("send", `hello ${name}`, "--agent", name, "--wait");
        expect(sent.code, sent.stderr).toBe(0);
        expect((await onDisk(name)).running).toBe(1);
      }),
    );
  });

  it("an unreachable deployment: exit 3 naming the URL, the file unchanged", async () => {
    const before = readFileSync(server.env.CLAWRUN_CONFIG as string, "utf8");
    const [r, both] = await Promise.all([
      clawrun(["agents", "rm", "team"], env({ CLAWRUN_URL: "http://127.0.0.1:9" })),
      clawrun(
        ["agents", "rm", "team", "--offline", "--delete-snapshots"],
        env({ CLAWRUN_URL: "http://127.0.0.1:9" }),
      ),
    ]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('cannot put "team" to sleep first, so clawrun.json is unchanged');
    expect(r.stderr).toContain("http://127.0.0.1:9");
    expect(r.stderr).toContain("--offline");
    expect(both.code).toBe(2);
    expect(readFileSync(server.env.CLAWRUN_CONFIG as string, "utf8")).toBe(before);
  });

  it("rm puts the running agent to sleep first, then edits the file; its snapshot stays", async () => {
    const r = await run("agents", "rm", "team");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('asked "team" to sleep');
    expect(r.stdout).toContain('"team" is sleeping');
    expect(r.stdout).toContain(
      "its snapshots and stored data are kept: `clawrun agents add team` brings it back",
    );
    expect(fileAgents()).toEqual(["clawrun", "extra"]);
    expect(await onDisk("team")).toEqual({ running: 0, snapshots: 1 });
    // The running server still knows it (it reads the file at restart): asleep, snapshot listed.
    const o = await operatorGet<Overview>(server, "/api/agents/team/sandbox");
    expect(o.instance.status).toBe("sleeping");
    const s = await operatorGet<{ snapshots: unknown[] }>(
      server,
      "/api/agents/team/sandbox/snapshots",
    );
    expect(s.snapshots).toHaveLength(1);
  });

  it("rm --delete-snapshots deletes the agent's snapshots through the operator API", async () => {
    const r = await run("agents", "rm", "extra", "--delete-snapshots", "--json");
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      removed: string;
      status: string;
      snapshotsDeleted: string[];
    };
    expect(doc).toMatchObject({ removed: "extra", status: "sleeping" });
    expect(doc.snapshotsDeleted).toHaveLength(1);
    expect(fileAgents()).toEqual(["clawrun"]);
    expect(await onDisk("extra")).toEqual({ running: 0, snapshots: 0 });
    const s = await operatorGet<{ snapshots: unknown[] }>(
      server,
      "/api/agents/extra/sandbox/snapshots",
    );
    expect(s.snapshots).toEqual([]);
    // The default agent was never touched, and is now the only one: rm refuses it.
    const last = await run("agents", "rm", "clawrun");
    expect(last.code).toBe(2);
    expect(last.stderr).toContain('"clawrun" is the only agent');
  });

  it("add brings a removed agent back with its data: the same store keys, its snapshot", async () => {
    const r = await run("agents", "add", "team");
    expect(r.code, r.stderr).toBe(0);
    expect(fileAgents()).toEqual(["clawrun", "team"]);
    const sent = await run("send", "back again", "--agent", "team", "--wait");
    expect(sent.code, sent.stderr).toBe(0);
    // Woken from the kept snapshot: the echo agent counts on from before.
    expect(sent.stdout).toMatch(/echo: back again \(message #2/);
    await run("stop", "--agent", "team", "--wait");
  });
});
