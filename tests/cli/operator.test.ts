import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { clawrun, type RunningCli, spawnClawrun } from "../support/cli";
import { freePort, waitFor } from "../support/free-port";
import { instanceStatus } from "../support/messages";

/**
 * `clawrun` as a child process against the real production server, through a whole life:
 * never started → woken (followed live) → messages → snapshot → asleep → woken by a message.
 * The tests in a describe run in order and share the agent's state. Each CLI run is a fresh
 * Node process (~0.25 CPU-s, ~0.5 with a request): runs that cannot affect each other go
 * together, so a test waits for its slowest run rather than for the sum of them.
 */

let server: ClawrunServer;
const env = () => ({
  CLAWRUN_URL: server.url,
  ADMIN_SECRET: server.secrets.admin,
  CLAWRUN_WEBHOOK_SECRET: server.secrets.webhook,
});
const run = (...args: string[]) => clawrun(args, env());
const json = <T>(stdout: string) => JSON.parse(stdout) as T;
const follows: RunningCli[] = [];

interface Overview {
  instance: { status: string; sandboxId: string | null };
}
interface ErrorBody {
  error: { code: string; message: string };
}

beforeAll(async () => {
  server = await startClawrun({ timings: { heartbeatIntervalMs: 1000 } });
});
afterAll(async () => {
  for (const f of follows) await f.interrupt();
  await server?.stop();
});

describe("reading and refusing, before anything started", () => {
  it("status of a never-started agent, in words and as JSON", async () => {
    const [r, j] = await Promise.all([run("status"), run("status", "--json")]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[0]).toMatch(/^uninitialized +never started · wakes on the first/);
    expect(r.stdout).toMatch(/^inbox +0 pending, 0 dead letters$/m);
    expect(j.code).toBe(0);
    expect(json<Overview>(j.stdout).instance.status).toBe("uninitialized");
  });

  it("every command answers --help with its usage (exit 0)", async () => {
    const names = [
      "status",
      "events",
      "logs",
      "send",
      "wake",
      "stop",
      "snapshot",
      "snapshots",
      "snapshots delete",
      "inbox",
      "inbox retry",
      "config check",
      "config show",
      "channels register",
      "channels status",
      "agent prepare",
      "agents list",
      "agents add",
      "agents rm",
    ];
    const [general, bare, ...results] = await Promise.all([
      run("--help"),
      run(),
      ...names.map((n) => run(...n.split(" "), "--help")),
    ]);
    results.forEach((r, i) => {
      expect(r.code, names[i]).toBe(0);
      expect(r.stdout, names[i]).toMatch(new RegExp(`^usage: clawrun ${names[i]}`));
      expect(r.stdout, names[i]).toContain("exit codes: 0 ok");
    });
    expect(general.code).toBe(0);
    for (const n of names) expect(general.stdout).toContain(`  ${n}`);
    expect(bare.code).toBe(2);
  });

  // Refused before any request: nothing to share, so these run side by side.
  it.concurrent.for<[string[], string]>([
    [["status", "--bogus"], 'unknown flag --bogus for "clawrun status"'],
    [["events", "--follow=yes"], "--follow takes no value"],
    [["events", "--limit", "0"], '--limit: expected an integer from 1 to 1000, got "0"'],
    [["send"], "clawrun send: expected <text> (got 0 arguments)"],
    [["send", "two", "words"], "quote text that has spaces"],
    [["send", "hi", "--conversation"], "--conversation needs a value"],
    [["wake", "--fresh", "--snapshot", "snap-1"], "--fresh and --snapshot exclude each other"],
    [["stop", "now"], 'clawrun stop: takes no arguments (got "now")'],
    [["frobnicate"], 'unknown command "frobnicate"'],
    [["snapshots", "delete"], "clawrun snapshots delete: expected <id> (got 0 arguments)"],
  ])("%j is a usage error (exit 2) naming the problem", async ([args, message], { expect }) => {
    const r = await run(...args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe("");
  });

  it("a usage error with --json is a JSON error on stdout", async () => {
    const r = await run("wake", "--json", "--now");
    expect(r.code).toBe(2);
    expect(json<ErrorBody>(r.stdout).error).toEqual({
      code: "usage",
      message: 'unknown flag --now for "clawrun wake" (see clawrun wake --help)',
    });
  });

  it("unreachable, wrong secret or no secret: exit 3 saying which", async () => {
    const port = await freePort();
    const empty = mkdtempSync(join(tmpdir(), "clawrun-cli-"));
    const [gone, wrong, none, bad] = await Promise.all([
      run("status", "--url", `http://127.0.0.1:${port}`),
      clawrun(["status", "--json"], { ...env(), ADMIN_SECRET: "x".repeat(32) }),
      clawrun(["status"], { CLAWRUN_URL: server.url, CLAWRUN_STATE_DIR: empty }),
      clawrun(["status"], { ...env(), CLAWRUN_URL: "ftp://nope" }),
    ]).finally(() => rmSync(empty, { recursive: true, force: true }));
    expect(gone.code).toBe(3);
    expect(gone.stderr).toContain(
      `cannot reach ClawRun at http://127.0.0.1:${port} (from --url): ECONNREFUSED`,
    );

    expect(wrong.code).toBe(3);
    expect(json<ErrorBody>(wrong.stdout).error.code).toBe("invalid_token");
    expect(wrong.stdout + wrong.stderr).not.toContain("x".repeat(32));

    expect(none.code).toBe(3);
    expect(none.stderr).toContain(`no operator secret: set ADMIN_SECRET`);
    expect(none.stderr).toContain(join(empty, "secrets.json"));

    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("CLAWRUN_URL: expected an http(s) URL");
  });

  it("inbox and config show read the deployment", async () => {
    const [inbox, config, configJson] = await Promise.all([
      run("inbox"),
      run("config", "show"),
      run("config", "show", "--json"),
    ]);
    expect(inbox.code).toBe(0);
    expect(inbox.stdout).toBe(
      "inbox: 0 pending, 0 dead letters · replies: 0 pending, 0 dead letters\n",
    );
    expect(config.code).toBe(0);
    expect(config.stdout).toMatch(/^sandbox\.activeDuration +300 +\(default\)$/m);
    const rows = json<{ rows: { key: string }[] }>(configJson.stdout);
    expect(rows.rows.map((r) => r.key)).toContain("sandbox.activeDuration");
  });

  it("reads the secrets a local run keeps in <CLAWRUN_STATE_DIR>/secrets.json", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawrun-cli-"));
    try {
      writeFileSync(
        join(dir, "secrets.json"),
        JSON.stringify({ ADMIN_SECRET: server.secrets.admin }),
        { mode: 0o600 },
      );
      const [r, ok] = await Promise.all([
        clawrun(["snapshots"], { CLAWRUN_PUBLIC_URL: server.url }, { cwd: dir }),
        clawrun(["snapshots"], { CLAWRUN_PUBLIC_URL: server.url, CLAWRUN_STATE_DIR: dir }),
      ]);
      expect(r.stderr).toContain("no operator secret"); // the default dir is ./.clawrun
      expect(ok.stderr).toBe("");
      expect(ok.code).toBe(0);
      expect(ok.stdout).toBe("no snapshots yet\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("actions the state does not allow: exit 1 with the server's words, nothing changed", async () => {
    // The refusals side by side; what they left behind is read once they have all answered.
    const [stop, snap, del, retryMsg, retryReply, prepare, prepareText] = await Promise.all([
      run("stop"),
      run("snapshot", "--json"),
      run("snapshots", "delete", "snap-nope"),
      run("inbox", "retry", "msg-nope", "--json"),
      run("inbox", "retry", "reply:msg-nope", "--json"),
      // The echo agent has no layer to build (POST /api/sandbox/layer).
      run("agent", "prepare", "--json"),
      run("agent", "prepare"),
    ]);
    expect(stop.code).toBe(1);
    expect(stop.stderr).toMatch(/^clawrun stop: .*uninitialized/);
    expect(snap.code).toBe(1);
    expect(json<ErrorBody>(snap.stdout).error.code).toBe("not_running");
    expect(del.code).toBe(1);
    expect(del.stderr).toContain("snap-nope");
    for (const retry of [retryMsg, retryReply]) {
      expect(retry.code).toBe(1);
      expect(json<ErrorBody>(retry.stdout).error.code).toBe("not_found");
    }
    expect(prepare.code).toBe(1);
    expect(json<ErrorBody>(prepare.stdout).error).toMatchObject({ code: "no_layer" });
    expect(prepareText.stderr).toMatch(/^clawrun agent prepare: .*no layer/);
    const [events, eventsText] = await Promise.all([run("events", "--json"), run("events")]);
    expect(events.code).toBe(0);
    expect(events.stdout).toBe("");
    expect(eventsText.stdout).toBe("no events yet\n");
    expect(await instanceStatus(server)).toBe("uninitialized");
  });
});

describe("a life, followed live", () => {
  let eventsFollow: RunningCli;
  let logsFollow: RunningCli;

  it("events --follow and logs --follow print what happens after they started", async () => {
    eventsFollow = spawnClawrun(["events", "--follow", "--interval", "200"], env());
    logsFollow = spawnClawrun(["logs", "--follow", "--interval", "200"], env());
    follows.push(eventsFollow, logsFollow);
    await waitFor(
      "events --follow to start",
      async () => eventsFollow.stderr().includes("(following"),
      20_000,
      50,
    );
    await waitFor(
      "logs --follow to start",
      async () => logsFollow.stderr().includes("(following"),
      20_000,
      50,
    );
    expect(eventsFollow.stdout()).toBe(""); // nothing happened yet
    expect(logsFollow.stderr()).toContain("(no sandbox (the agent is uninitialized))");

    const wake = await run("wake", "--wait");
    expect(wake.stderr).toBe("");
    expect(wake.code).toBe(0);
    const lines = wake.stdout.trim().split("\n");
    expect(lines[0]).toBe("start: uninitialized → creating");
    expect(lines.at(-1)).toMatch(/^running/);

    await eventsFollow.waitForOutput(/status\.running: /);
    await logsFollow.waitForOutput("echo agent listening");
    expect(await eventsFollow.interrupt()).toBe(0);
    expect(await logsFollow.interrupt()).toBe(0);
    const out = eventsFollow.stdout();
    expect(out).toMatch(/^\d\d:\d\d:\d\d status\.creating: /m);
    expect(out.match(/status\.running: /g)).toHaveLength(1); // each event printed once
    expect(out.indexOf("status.creating")).toBeLessThan(out.indexOf("status.running"));
  }, 90_000);

  it("status says it is awake and until when", async () => {
    const r = await run("status");
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[0]).toMatch(/^running +awake since \d\d:\d\d:\d\d/);
    expect(r.stdout).toMatch(/^sandbox +\S+$/m);
  });

  it("wake on a running agent is not an error", async () => {
    const r = await run("wake");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("already running\n");
  });

  it("send prints the agent's reply; the same id again is a duplicate", async () => {
    // Refused credentials leave nothing behind: that send goes alongside the first.
    const [r, wrong] = await Promise.all([
      run("send", "hello from the cli", "--conversation", "c1", "--id", "cli-msg-1"),
      clawrun(["send", "x"], { ...env(), CLAWRUN_WEBHOOK_SECRET: "y".repeat(32) }),
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^echo: hello from the cli \(message #1 in "c1"/);
    const again = await run("send", "hello from the cli", "--id", "cli-msg-1", "--json");
    expect(again.code).toBe(0);
    expect(json<{ status: string; id: string }>(again.stdout)).toEqual({
      status: "duplicate",
      id: "cli-msg-1",
    });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain("refused the credentials");
  });

  it("logs shows the sandbox's log, as text and as JSON", async () => {
    const [r, logsJson] = await Promise.all([run("logs"), run("logs", "--json")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("echo agent listening");
    const j = json<{ sandboxId: string; lines: { text: string }[] }>(logsJson.stdout);
    expect(j.sandboxId).toMatch(/\S/);
    expect(j.lines.some((l) => l.text.includes("echo agent listening"))).toBe(true);
  });

  it("snapshot --wait, then snapshots lists it and snapshots delete removes it", async () => {
    const snap = await run("snapshot", "--wait");
    expect(snap.stderr).toBe("");
    expect(snap.code).toBe(0);
    const taken = /^snapshot: running → running\ntaken: (\S+)\n$/.exec(snap.stdout);
    expect(taken, snap.stdout).not.toBeNull();
    const [list, human] = await Promise.all([run("snapshots", "--json"), run("snapshots")]);
    const { snapshots } = json<{ snapshots: { id: string }[] }>(list.stdout);
    expect(snapshots.map((s) => s.id)).toEqual([taken?.[1]]);
    const id = snapshots[0]?.id as string;
    expect(human.stdout).toMatch(new RegExp(`^${id}  \\d\\d:\\d\\d:\\d\\d \\(\\d+ s ago\\)  `));
    const del = await run("snapshots", "delete", id);
    expect(del.code).toBe(0);
    expect(del.stdout).toBe(`deleted ${id}\n`);
    expect((await run("snapshots")).stdout).toBe("no snapshots yet\n");
  }, 60_000);

  it("stop --wait puts it to sleep; a message sent then is queued and wakes it", async () => {
    const stop = await run("stop", "--wait");
    expect(stop.stderr).toBe("");
    expect(stop.code).toBe(0);
    expect(stop.stdout).toMatch(/^stop: running → snapshotting\n/);
    expect(stop.stdout.trim().split("\n").at(-1)).toMatch(/^sleeping/);
    expect((await run("status")).stdout.split("\n")[0]).toMatch(
      /^sleeping +asleep since .* · wakes on the next message$/,
    );

    const send = await run("send", "are you there?", "--id", "cli-msg-2", "--wait");
    expect(send.stderr).toBe("");
    expect(send.code).toBe(0);
    const [queued, reply] = send.stdout.trim().split("\n");
    expect(queued).toBe("queued cli-msg-2 (delivered after the wake)");
    expect(reply).toMatch(/^echo: are you there\? \(message #1 in "cli"/);
    expect(await instanceStatus(server)).toBe("running");
    const events = await run("events", "--limit", "50");
    expect(events.stdout).toContain("message.delivered: delivered cli-msg-2");
  }, 120_000);

  it("--json with --wait answers one document, at the end", async () => {
    const stop = await run("stop", "--wait", "--json");
    expect(stop.code, `${stop.stdout}${stop.stderr}`).toBe(0);
    expect(json(stop.stdout)).toEqual({
      action: "stop",
      from: "running",
      to: "snapshotting",
      status: "sleeping",
    });
    const send = await run("send", "once more", "--id", "cli-msg-3", "--wait", "--json");
    expect(send.code, `${send.stdout}${send.stderr}`).toBe(0);
    expect(json(send.stdout)).toEqual({
      status: "replied",
      id: "cli-msg-3",
      reply: expect.stringMatching(/^echo: once more \(message #2 in "cli"/),
    });
    const snap = await run("snapshot", "--wait", "--json");
    expect(snap.code, `${snap.stdout}${snap.stderr}`).toBe(0);
    expect(json(snap.stdout)).toEqual({
      action: "snapshot",
      from: "running",
      to: "running",
      snapshotId: expect.any(String),
    });
  }, 120_000);
});
