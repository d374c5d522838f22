import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, waitFor } from "../../tests/support/free-port";
import { bundlePath } from "../server/bundles";
import { conversationFileName } from "./conversation-log";

const running: ChildProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) p.kill("SIGKILL");
});

async function startEcho(home: string): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [bundlePath("agentEcho")], {
    cwd: home,
    env: { HOME: home, PORT: String(port), PATH: process.env.PATH } as unknown as NodeJS.ProcessEnv,
    stdio: "ignore",
  });
  running.push(child);
  const url = `http://127.0.0.1:${port}`;
  await waitFor("echo agent", async () => (await fetch(`${url}/health`)).ok);
  return url;
}

function send(url: string, body: unknown) {
  return fetch(`${url}/message`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
}

describe("echo agent (bundled, real process)", () => {
  it("echoes with a per-conversation count kept in files that survive a restart", async () => {
    const home = mkdtempSync(join(tmpdir(), "echo-"));
    let url = await startEcho(home);
    const r1 = await (await send(url, { id: "m1", conversation: "alice", text: "hi" })).json();
    const r2 = await (await send(url, { id: "m2", conversation: "alice", text: "again" })).json();
    const r3 = await (await send(url, { id: "m3", conversation: "bob", text: "yo" })).json();
    expect([r1.count, r2.count, r3.count]).toEqual([1, 2, 1]);
    expect(r2.reply).toContain("again");
    expect(r2.reply).toContain("reference echo agent");

    running.pop()?.kill("SIGKILL");
    url = await startEcho(home);
    const r4 = await (
      await send(url, { id: "m4", conversation: "alice", text: "after restart" })
    ).json();
    expect(r4.count).toBe(3);
    const lines = readFileSync(join(home, "conversations", "alice.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(["m1", "m2", "m4"]);
  });

  it("keeps conversations apart whose names differ only in characters a file name cannot hold", async () => {
    const url = await startEcho(mkdtempSync(join(tmpdir(), "echo-")));
    const count = async (conversation: string, id: string) =>
      (await (await send(url, { id, conversation, text: "hi" })).json()).count as number;
    // Each pair used to share one file (and so one history and one count).
    expect(await count("team/alice", "a1")).toBe(1);
    expect(await count("team_alice", "b1")).toBe(1);
    expect(await count("team/alice", "a2")).toBe(2);
    expect(await count("日本", "j1")).toBe(1);
    expect(await count("中国", "c1")).toBe(1);
    expect(await count("..", "d1")).toBe(1);
    expect(await count("x".repeat(256), "l1")).toBe(1);
    expect(await count(`${"x".repeat(255)}y`, "l2")).toBe(1);
  });

  it("names conversation files one-to-one, keeping plain names as they were", () => {
    expect(conversationFileName("alice")).toBe("alice");
    expect(conversationFileName("team_alice-2")).toBe("team_alice-2");
    expect(conversationFileName("team/alice")).toBe("team%2Falice");
    expect(conversationFileName("%2F")).toBe("%252F");
    expect(conversationFileName("日本")).not.toBe(conversationFileName("中国"));
    const long = conversationFileName("é".repeat(256));
    expect(long.length).toBeLessThanOrEqual(160);
    expect(long).not.toBe(conversationFileName(`${"é".repeat(255)}e`));
  });

  it("counts a redelivered message id once", async () => {
    const url = await startEcho(mkdtempSync(join(tmpdir(), "echo-")));
    await send(url, { id: "same", conversation: "c", text: "x" });
    const again = await (await send(url, { id: "same", conversation: "c", text: "x" })).json();
    expect(again).toMatchObject({ count: 1, duplicate: true });
  });

  it("rejects bad bodies with 400 and unknown routes with 404", async () => {
    const url = await startEcho(mkdtempSync(join(tmpdir(), "echo-")));
    expect((await fetch(`${url}/message`, { method: "POST", body: "nope" })).status).toBe(400);
    expect((await send(url, { id: "x", conversation: "c" })).status).toBe(400);
    expect((await fetch(`${url}/other`)).status).toBe(404);
  });

  it("reports cron jobs from cron.json in its workspace", async () => {
    const home = mkdtempSync(join(tmpdir(), "echo-"));
    const url = await startEcho(home);
    expect(await (await fetch(`${url}/cron`)).json()).toEqual({ jobs: [] });
    const jobs = [{ name: "standup", schedule: "0 9 * * 1-5", message: "standup time" }];
    writeFileSync(join(home, "cron.json"), JSON.stringify({ jobs }));
    expect(await (await fetch(`${url}/cron`)).json()).toEqual({ jobs });
  });
});
