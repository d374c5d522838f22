import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { clawrun } from "../support/cli";
import { waitFor } from "../support/free-port";

/**
 * Issue 22, item 11: the agent's snapshot file is gone while it sleeps. The operator is told
 * `failed — snapshot missing` with "start fresh" as the one action, the server does not keep
 * retrying, and the message that arrived meanwhile is delivered after the fresh start.
 */

let server: ClawrunServer | undefined;
afterAll(async () => {
  await server?.stop();
});

interface EventJson {
  type: string;
  message: string;
}

it("a missing snapshot reads failed — snapshot missing, is not retried, and start fresh delivers the queued message", async () => {
  // Failed starts would be retried 1 s, then 2 s after each failure (the shipped base is 5 s):
  // the wait below spans two retry periods instead of waiting out the shipped one.
  server = await startClawrun({ timings: { heartbeatIntervalMs: 1000, failedRetryBaseMs: 1000 } });
  const env = {
    CLAWRUN_URL: server.url,
    ADMIN_SECRET: server.secrets.admin,
    CLAWRUN_WEBHOOK_SECRET: server.secrets.webhook,
  };
  const run = (...args: string[]) => clawrun(args, env);
  expect((await run("wake", "--wait")).code).toBe(0);
  const stop = await run("stop", "--wait");
  expect(stop.code, stop.stderr).toBe(0);

  // Delete the snapshot's archive file(s), as a user cleaning up disk space might.
  const snapshotsDir = join(server.stateDir, "snapshots");
  const archives = readdirSync(snapshotsDir, { recursive: true, encoding: "utf8" }).filter((f) =>
    /archive\.tar/.test(f),
  );
  expect(archives.length).toBeGreaterThan(0);
  for (const f of archives) rmSync(join(snapshotsDir, f));

  const send = await run("send", "are you still there?", "--id", "after-loss");
  expect(send.code, send.stderr).toBe(0);

  const firstLine = async () => (await run("status")).stdout.split("\n")[0] ?? "";
  await waitFor("the failure to be said", async () => /^failed/.test(await firstLine()), 60_000);
  const status = await run("status");
  const top = status.stdout.split("\n")[0] ?? "";
  expect(top).toMatch(/^failed +— snapshot missing/);
  expect(top).not.toMatch(/wakes on the next message|clawrun wake tries again|retries at/);
  expect(top).toContain("clawrun wake --fresh");
  const overview = JSON.parse((await run("status", "--json")).stdout) as {
    instance: { status: string };
    nextRetryAt: number | null;
    inbox: { pending: number };
  };
  expect(overview.instance.status).toBe("failed");
  expect(overview.nextRetryAt).toBeNull();
  expect(overview.inbox.pending).toBe(1); // kept for after the fresh start

  // No retries: the count of failed starts stays put over several retry periods.
  const failures = async () => {
    const r = await run("events", "--limit", "1000", "--json");
    return r.stdout
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as EventJson)
      .filter((e) => e.type === "status.failed").length;
  };
  const before = await failures();
  await new Promise((r) => setTimeout(r, 3_500));
  expect(await failures()).toBe(before);

  const fresh = await run("wake", "--fresh", "--wait");
  expect(fresh.code, fresh.stderr).toBe(0);
  await waitFor(
    "the queued message to be delivered",
    async () => {
      const r = await run("events", "--limit", "1000");
      return r.stdout.includes("message.delivered: delivered after-loss");
    },
    60_000,
  );
}, 240_000);
