import { afterAll, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { clawrun, type RunningCli, spawnClawrun } from "../support/cli";
import { waitFor } from "../support/free-port";

/**
 * `events --follow --limit N` prints the N newest events, then only what happens after —
 * never the older history its wider follow-up windows also contain (issue 22, item 16).
 */

let server: ClawrunServer | undefined;
let follow: RunningCli | undefined;
afterAll(async () => {
  await follow?.interrupt();
  await server?.stop();
});

it("events --follow --limit 2 prints the two newest, then only new events, in order", async () => {
  server = await startClawrun({});
  const env = {
    CLAWRUN_URL: server.url,
    ADMIN_SECRET: server.secrets.admin,
    CLAWRUN_WEBHOOK_SECRET: server.secrets.webhook,
  };
  const wake = await clawrun(["wake", "--wait"], env); // a history of several events
  expect(wake.code, wake.stderr).toBe(0);
  const before = await clawrun(["events", "--limit", "1000", "--json"], env);
  const history = before.stdout.trim().split("\n");
  expect(history.length).toBeGreaterThan(2); // more than --limit 2

  const running = spawnClawrun(
    ["events", "--follow", "--limit", "2", "--interval", "100", "--json"],
    env,
  );
  follow = running;
  await waitFor("--follow to start", async () => running.stderr().includes("(following"), 20_000);
  // Several polls of the wider window pass before anything new happens.
  await new Promise((r) => setTimeout(r, 1_500));
  const stop = await clawrun(["stop", "--wait"], env);
  expect(stop.code, stop.stderr).toBe(0);
  await running.waitForOutput(/status\.sleeping/);
  expect(await running.interrupt()).toBe(0);

  const printed = running
    .stdout()
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { id: string; at: number; type: string });
  const ids = printed.map((e) => e.id);
  expect(new Set(ids).size).toBe(ids.length); // nothing twice
  const firstTwo = history.slice(-2).map((l) => (JSON.parse(l) as { id: string }).id);
  expect(ids.slice(0, 2)).toEqual(firstTwo); // the two newest, then…
  const known = new Set(history.map((l) => (JSON.parse(l) as { id: string }).id));
  expect(ids.slice(2).filter((id) => known.has(id))).toEqual([]); // …no older history
  const times = printed.map((e) => e.at);
  expect(times).toEqual([...times].sort((a, b) => a - b)); // oldest first throughout
}, 120_000);
