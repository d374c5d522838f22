import {
  type AgentRow,
  addAgent,
  agentRows,
  type EditResult,
  removeAgent,
  type Validate,
} from "../../config/agents-edit";
import { SECRET_NAMES } from "../../config/env";
import { readAgentsFile, refuseComments, writeAgentsFile } from "../agents-file";
import { ApiClient, interrupted } from "../api-client";
import { deletedSchema, overviewSchema, snapshotsSchema, transitionSchema } from "../api-schemas";
import { flag } from "../args";
import { type Command, type CommandContext, pause } from "../command";
import { CliError, EXIT, usageError } from "../exit-codes";

/**
 * `clawrun agents list|add|rm` (docs/cli.md, docs/several-agents.md): edit the operator's
 * clawrun.json. The edits are src/config/agents-edit.ts; this file reads and writes the file,
 * validates the result as the server does, and for `rm` first puts the agent to sleep.
 */

/** The server's modules, loaded on use (they pull in every schema, as `config check` does). */
async function serverParts() {
  const [{ agentConfigs, parseConfigText }, { CHANNELS }, { AGENTS }, { ConfigError }] =
    await Promise.all([
      import("../../server/compose/config-schema"),
      import("../../server/channels"),
      import("../../server/agents"),
      import("../../config/load-config"),
    ]);
  const validate =
    (path: string): Validate =>
    (file) => {
      try {
        const { config, raw } = parseConfigText(JSON.stringify(file), path);
        agentConfigs({ config, raw, path });
        return [];
      } catch (err) {
        if (err instanceof ConfigError) return err.problems;
        throw err;
      }
    };
  const shared = new Set<string>(SECRET_NAMES);
  /** A channel's own required variables (ClawRun's shared secrets are not per agent). */
  const channelEnv = (name: string): string[] => {
    const schema = CHANNELS.find((c) => c.name === name)?.envSchema as
      | { shape?: Record<string, { safeParse(v: unknown): { success: boolean } }> }
      | undefined;
    return Object.entries(schema?.shape ?? {})
      .filter(([key, s]) => !shared.has(key) && !s.safeParse(undefined).success)
      .map(([key]) => key);
  };
  const agentTypes = AGENTS.map((a) => a.name);
  return { validate, channelEnv, agentTypes };
}

/** These commands name the agent as an operand; --agent / CLAWRUN_AGENT pick nothing here. */
function noAgentFlag(args: Parameters<Command["run"]>[1]): void {
  if (flag.str(args, "agent") !== undefined)
    throw usageError("name the agent as the operand (clawrun agents rm NAME), not with --agent");
}

function refused(result: Extract<EditResult, { ok: false }>): CliError {
  const lines = [result.message, ...(result.problems ?? []).map((p) => `  ${p}`)];
  return usageError(lines.join("\n"));
}

export const agentsListCommand: Command = {
  name: "agents list",
  summary: "the agents clawrun.json declares: type, webhook URLs, the variables they read",
  arity: { min: 0, max: 0 },
  flags: {},
  notes: [
    "Reads this machine's clawrun.json (CLAWRUN_CONFIG, default ./clawrun.json), as `config check`",
    "does; `clawrun status` shows what the deployment runs.",
  ],
  async run(ctx, args) {
    noAgentFlag(args);
    const file = readAgentsFile(ctx.env, ctx.cwd);
    const { channelEnv } = await serverParts();
    const rows = agentRows(file.parsed, channelEnv);
    if (ctx.json) {
      ctx.out(JSON.stringify({ config: file.exists ? file.path : null, agents: rows }));
      return EXIT.ok;
    }
    if (!file.exists) ctx.out(`no clawrun.json at ${file.path}; the defaults are one agent:`);
    for (const line of formatRows(rows)) ctx.out(line);
    return EXIT.ok;
  },
};

/** Pure: one aligned row per agent, then its channels with their webhook and variables. */
export function formatRows(rows: AgentRow[]): string[] {
  const table = [
    ["agent", "type", "webhooks", "variables"],
    ...rows.map((r) => [
      r.isDefault ? `${r.name} (default)` : r.name,
      r.type,
      `/api/webhooks/<channel>${r.webhookSuffix}`,
      r.channels.flatMap((c) => c.env).join(", ") || "-",
    ]),
  ];
  const widths = table[0]?.map((_, col) => Math.max(...table.map((row) => row[col]?.length ?? 0)));
  return table.map((row) =>
    row
      .map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd(widths?.[col] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

export const agentsAddCommand: Command = {
  name: "agents add",
  summary: "add an agent to clawrun.json (a one-agent file keeps its agent as instance.name)",
  operands: "<name>",
  arity: { min: 1, max: 1 },
  flags: {
    type: {
      type: "string",
      value: "<type>",
      description: "its agent.type (default: the shared one)",
    },
    "copy-from": {
      type: "string",
      value: "<agent>",
      description: "start from this agent's own settings",
    },
  },
  notes: [
    "Edits this machine's clawrun.json (CLAWRUN_CONFIG, default ./clawrun.json). The whole new file",
    "is checked as the server checks it before it is written; an invalid one changes nothing",
    "(exit 2). A file with comments is not rewritten (exit 1). A deployed (Vercel) clawrun.json",
    "takes effect after a redeploy, a local server's after a restart.",
  ],
  async run(ctx, args) {
    noAgentFlag(args);
    const name = args.positionals[0] as string;
    const type = flag.str(args, "type");
    const copyFrom = flag.str(args, "copy-from");
    const file = readAgentsFile(ctx.env, ctx.cwd);
    refuseComments(file);
    const { validate, channelEnv, agentTypes } = await serverParts();
    if (type !== undefined && !agentTypes.includes(type))
      throw usageError(`--type: expected one of ${agentTypes.join(", ")} (got "${type}")`);
    const result = addAgent(file.parsed, { name, type, copyFrom }, validate(file.path));
    if (!result.ok) throw refused(result);
    writeAgentsFile(file.path, result.file);
    const row = agentRows(result.file, channelEnv).find((r) => r.name === name) as AgentRow;
    const given = ctx.env.CLAWRUN_URL?.trim() || ctx.env.CLAWRUN_PUBLIC_URL?.trim();
    const base = given ? given.replace(/\/+$/, "") : "<public URL>";
    if (ctx.json) {
      ctx.out(
        JSON.stringify({
          added: name,
          config: file.path,
          movedExisting: result.movedExisting,
          agent: row,
        }),
      );
      return EXIT.ok;
    }
    ctx.out(`added agent "${name}" (${row.type}) to ${file.path}`);
    if (result.movedExisting)
      ctx.out(
        `the existing agent is now agents.${result.movedExisting}: it keeps its store keys, secrets, variables and URLs`,
      );
    if (row.deploymentKeys)
      ctx.out(`"${name}" is named like instance.name: it is the default agent now`);
    ctx.out("its channels:");
    for (const c of row.channels) {
      const env = c.env.length ? `set ${c.env.join(", ")}` : "no variables of its own";
      ctx.out(`  ${c.name}: ${base}${c.webhookPath} (${env})`);
    }
    ctx.out(
      `operator API ${base}/api/agents/${name}/sandbox, dashboard ${base}/agents/${name}, CLI --agent ${name}`,
    );
    ctx.out(
      "next: set the variables where the deployment runs; redeploy a Vercel deployment, restart a local server",
    );
    return EXIT.ok;
  },
};

/** Statuses in which an agent has no sandbox running (src/server/domain/instance-state.ts). */
const AT_REST = new Set(["uninitialized", "sleeping", "failed"]);

export const agentsRmCommand: Command = {
  name: "agents rm",
  summary: "put an agent to sleep, then remove it from clawrun.json (its data is kept)",
  operands: "<name>",
  arity: { min: 1, max: 1 },
  flags: {
    "delete-snapshots": {
      type: "boolean",
      description: "also delete its snapshots on the deployment (before the file is edited)",
    },
    offline: {
      type: "boolean",
      description: "edit the file without reaching the deployment (stop its sandbox yourself)",
    },
    timeout: {
      type: "integer",
      value: "<s>",
      min: 1,
      max: 3600,
      description: "how long to wait for the agent to sleep (default 120 s)",
    },
  },
  notes: [
    "Asks the deployment (--url, CLAWRUN_URL, …) to put the agent to sleep and waits until it is at",
    "rest, so no sandbox is left running that nothing stops; unreachable: exit 3, nothing changed.",
    "Its snapshots and stored data are kept, so `clawrun agents add <name>` brings it back.",
  ],
  async run(ctx, args) {
    noAgentFlag(args);
    const name = args.positionals[0] as string;
    const offline = flag.bool(args, "offline");
    const deleteSnapshots = flag.bool(args, "delete-snapshots");
    if (offline && deleteSnapshots)
      throw usageError("--delete-snapshots needs the deployment, --offline does not reach it");
    const file = readAgentsFile(ctx.env, ctx.cwd);
    refuseComments(file);
    const { validate } = await serverParts();
    const result = removeAgent(file.parsed, name, validate(file.path));
    if (!result.ok) throw refused(result);

    let status: string | null = null;
    let deleted: string[] = [];
    if (!offline) {
      const api = new ApiClient(ctx.target(), { agent: name, interrupt: ctx.signal });
      status = await putToSleep(ctx, api, name, (flag.int(args, "timeout") ?? 120) * 1000);
      if (deleteSnapshots && status !== null) deleted = await deleteAll(api);
    }
    writeAgentsFile(file.path, result.file);
    // On stderr, so --json scripts see it too.
    if (offline)
      ctx.err(
        `warning: --offline: the deployment was not asked; if "${name}" has a sandbox running, stop it by hand`,
      );
    if (ctx.json) {
      ctx.out(
        JSON.stringify({
          removed: name,
          config: file.path,
          status,
          offline,
          snapshotsDeleted: deleted,
          newDefault: result.wasDefault ? result.newDefault : null,
        }),
      );
      return EXIT.ok;
    }
    ctx.out(`removed agent "${name}" from ${file.path}`);
    if (deleteSnapshots) ctx.out(`deleted ${deleted.length} snapshot(s) of "${name}"`);
    ctx.out(
      deleteSnapshots
        ? `its stored data (events, inbox) is kept; \`clawrun agents add ${name}\` brings it back without snapshots`
        : `its snapshots and stored data are kept: \`clawrun agents add ${name}\` brings it back`,
    );
    if (result.wasDefault)
      ctx.out(
        `the routes without an agent name (/api/webhooks/<channel>, …) now go to "${result.newDefault}"`,
      );
    ctx.out("next: redeploy a Vercel deployment, restart a local server");
    return EXIT.ok;
  },
};

/**
 * Asks the agent to sleep and waits until it is at rest; its status, or null when the
 * deployment does not run it (not deployed yet). Unreachable: the file stays as it was.
 */
async function putToSleep(
  ctx: CommandContext,
  api: ApiClient,
  name: string,
  ms: number,
): Promise<string | null> {
  const deadline = ctx.now() + ms;
  let asked = false;
  let shown = "";
  try {
    while (!ctx.signal.aborted) {
      const o = await api.get("/api/sandbox", overviewSchema);
      const status = o.instance.status;
      if (!o.transitioning && AT_REST.has(status)) {
        if (!ctx.json) ctx.out(`"${name}" is ${status}`);
        if (status === "failed" && o.instance.sandboxId)
          ctx.err(
            `warning: "${name}" failed with sandbox ${o.instance.sandboxId}; check it is gone`,
          );
        return status;
      }
      if (status !== shown && !ctx.json) ctx.out(`"${name}" is ${status}`);
      shown = status;
      if (status === "running" && !o.transitioning && !asked) {
        try {
          await api.post("/api/sandbox/stop", transitionSchema);
          asked = true;
          if (!ctx.json) ctx.out(`asked "${name}" to sleep`);
        } catch (err) {
          // It moved between the two requests (woke, started sleeping): look again.
          if (!(err instanceof CliError) || !["busy", "not_running"].includes(err.code ?? ""))
            throw err;
        }
      }
      if (ctx.now() > deadline)
        throw new CliError(
          EXIT.failure,
          `"${name}" is still ${status} after ${ms / 1000} s; clawrun.json is unchanged`,
          "timeout",
        );
      await pause(250, ctx.signal);
    }
    throw interrupted();
  } catch (err) {
    if (err instanceof CliError && err.code === "not_found") {
      // The deployment has no such agent (the file was never deployed): nothing runs there.
      if (!ctx.json) ctx.out(`the deployment at ${api.url} does not run "${name}"`);
      return null;
    }
    if (err instanceof CliError && err.exitCode === EXIT.unreachable)
      throw new CliError(
        EXIT.unreachable,
        `cannot put "${name}" to sleep first, so clawrun.json is unchanged: ${err.message}. ` +
          `With --offline the file is edited anyway (then stop a running sandbox of "${name}" by hand)`,
        err.code,
      );
    throw err;
  }
}

async function deleteAll(api: ApiClient): Promise<string[]> {
  const { snapshots } = await api.get("/api/sandbox/snapshots", snapshotsSchema);
  const deleted: string[] = [];
  for (const s of snapshots) {
    await api.delete(`/api/sandbox/snapshots/${encodeURIComponent(s.id)}`, deletedSchema);
    deleted.push(s.id);
  }
  return deleted;
}
