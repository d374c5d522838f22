import { describe, expect, it } from "vitest";
import { agentConfigs, parseConfigText } from "../server/compose/config-schema";
import { addAgent, agentRows, removeAgent, type Validate } from "./agents-edit";
import { ConfigError } from "./load-config";

/** The server's own validation (as `clawrun agents` runs it), not a stand-in. */
const validate: Validate = (file) => {
  try {
    const { config, raw } = parseConfigText(JSON.stringify(file));
    agentConfigs({ config, raw, path: null });
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
};

const single = { instance: { name: "home" }, channels: { generic: {}, telegram: {} } };
const two = { ...single, agents: { home: {}, team: { agent: { type: "echo" } } } };

describe("agents add", () => {
  it("keeps a one-agent file's agent under instance.name, so its keys and URLs stay", () => {
    const r = addAgent(structuredClone(single), { name: "team" }, validate);
    expect(r.ok && r.file).toEqual({ ...single, agents: { home: {}, team: {} } });
    expect(r.ok && r.movedExisting).toBe("home");
    // The store keys of the existing agent are still the deployment's.
    const { config, raw } = parseConfigText(JSON.stringify(r.ok && r.file));
    const agents = agentConfigs({ config, raw, path: null });
    expect(agents.map((a) => [a.name, a.storeName, a.isDefault])).toEqual([
      ["home", "home", true],
      ["team", "home--team", false],
    ]);
  });

  it("appends to a file with agents, with its type, or a copy of another agent's entry", () => {
    const typed = addAgent(two, { name: "bot", type: "echo" }, validate);
    expect(typed.ok && typed.file.agents).toEqual({
      ...two.agents,
      bot: { agent: { type: "echo" } },
    });
    expect(typed.ok && typed.movedExisting).toBeNull();
    const withChannels = {
      ...two,
      agents: {
        ...two.agents,
        team: { channels: { telegram: null }, sandbox: { activeDuration: 60 } },
      },
    };
    const copied = addAgent(withChannels, { name: "bot", copyFrom: "team" }, validate);
    expect(copied.ok && copied.entry).toEqual(withChannels.agents.team);
    // A copy, not the same object: editing one agent later never edits the other.
    expect(copied.ok && copied.entry).not.toBe(withChannels.agents.team);
  });

  it("refuses an existing name, a bad name and an unknown --copy-from, saying what is expected", () => {
    const dup = addAgent(single, { name: "home" }, validate);
    expect(dup).toEqual({
      ok: false,
      message: 'an agent named "home" already exists (agents: home)',
    });
    const dup2 = addAgent(two, { name: "team" }, validate);
    expect(!dup2.ok && dup2.message).toBe(
      'an agent named "team" already exists (agents: home, team)',
    );
    for (const bad of ["Team", "-team", "team_1", "", "a".repeat(33)]) {
      const r = addAgent(single, { name: bad }, validate);
      expect(!r.ok && r.message, bad).toBe(
        `"${bad}" is not an agent name: expected 1-32 lowercase letters, digits or '-', starting and ending with a letter or digit (e.g. "team-bot")`,
      );
    }
    const copy = addAgent(two, { name: "bot", copyFrom: "nobody" }, validate);
    expect(!copy.ok && copy.message).toBe(
      '--copy-from: no agent named "nobody" (agents: home, team)',
    );
  });

  it("refuses a result the server would refuse, with the server's lines", () => {
    const r = addAgent(single, { name: "worker", type: "command" }, validate);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems).toEqual([
      "clawrun.json: agents.worker: agent.command: expected the daemon's executable (a non-empty string), but it is missing",
    ]);
    // An already broken entry elsewhere in the file is refused too: the whole file is checked.
    const broken = { agents: { a: { sandbox: { activeDuration: -1 } } } };
    const r2 = addAgent(broken, { name: "b" }, validate);
    expect(!r2.ok && r2.problems).toEqual([
      "clawrun.json: agents.a: sandbox.activeDuration: expected a positive integer, got -1",
    ]);
  });
});

describe("agents rm", () => {
  it("removes an agent's entry and nothing else", () => {
    const r = removeAgent(two, "team", validate);
    expect(r.ok && r.file).toEqual({ ...single, agents: { home: {} } });
    expect(r.ok && r.wasDefault).toBe(false);
  });

  it("refuses the last agent, of a one-agent file or of agents", () => {
    expect(removeAgent(single, "home", validate)).toEqual({
      ok: false,
      message: '"home" is the only agent: a deployment runs at least one (add another first)',
    });
    const one = { agents: { solo: {} } };
    expect(removeAgent(one, "solo", validate).ok).toBe(false);
    const unknown = removeAgent(two, "nobody", validate);
    expect(!unknown.ok && unknown.message).toBe(
      'no agent named "nobody" in the file (agents: home, team)',
    );
  });

  it("removes the default agent only if another remains, and names the next default", () => {
    const r = removeAgent(two, "home", validate);
    expect(r.ok && r.file.agents).toEqual({ team: { agent: { type: "echo" } } });
    expect(r.ok && [r.wasDefault, r.newDefault]).toEqual([true, "team"]);
  });
});

describe("agents list", () => {
  const env = (channel: string) => (channel === "telegram" ? ["TELEGRAM_BOT_TOKEN"] : []);

  it("a one-agent file: its agent, plain webhooks, unsuffixed variables", () => {
    expect(agentRows(single, env)).toEqual([
      {
        name: "home",
        type: "echo",
        isDefault: true,
        deploymentKeys: true,
        webhookSuffix: "",
        channels: [
          { name: "generic", webhookPath: "/api/webhooks/generic", env: [] },
          { name: "telegram", webhookPath: "/api/webhooks/telegram", env: ["TELEGRAM_BOT_TOKEN"] },
        ],
      },
    ]);
  });

  it("several agents: the merged type and channels, named webhooks and suffixed variables", () => {
    const file = {
      ...single,
      agents: {
        home: {},
        "team-bot": { agent: { type: "openclaw" }, channels: { generic: null } },
      },
    };
    const [home, team] = agentRows(file, env);
    expect(home?.channels.map((c) => c.webhookPath)).toEqual([
      "/api/webhooks/generic",
      "/api/webhooks/telegram",
    ]);
    expect(team).toMatchObject({ name: "team-bot", type: "openclaw", isDefault: false });
    expect(team?.channels).toEqual([
      {
        name: "telegram",
        webhookPath: "/api/webhooks/telegram/team-bot",
        env: ["TELEGRAM_BOT_TOKEN__TEAM_BOT"],
      },
    ]);
    // No `channels` at all: the schema's default, the generic webhook.
    expect(agentRows({}, env)[0]?.channels.map((c) => c.name)).toEqual(["generic"]);
  });
});
