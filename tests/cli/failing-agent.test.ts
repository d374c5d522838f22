import { afterAll, beforeAll, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { clawrun, spawnClawrun } from "../support/cli";

/**
 * The CLI in front of an agent that cannot start (its daemon never listens): `--wait` ends
 * with the cause instead of hanging, a queued message's `--wait` gives up or is interrupted.
 */

let server: ClawrunServer;
const env = () => ({
  CLAWRUN_URL: server.url,
  ADMIN_SECRET: server.secrets.admin,
  CLAWRUN_WEBHOOK_SECRET: server.secrets.webhook,
});

beforeAll(async () => {
  server = await startClawrun({
    config: { agent: { type: "command", command: "sleep", args: ["3600"] } },
    // A short health budget so the start fails fast; no automatic retry during the test.
    timings: { healthBudgetMs: 1_500, failedRetryBaseMs: 3_600_000, failedRetryMaxMs: 3_600_000 },
  });
});
afterAll(async () => {
  await server?.stop();
});

it("wake --wait ends with exit 1 and the cause; status says what to do", async () => {
  const wake = await clawrun(["wake", "--wait"], env());
  expect(wake.code, wake.stdout + wake.stderr).toBe(1);
  expect(wake.stdout).toMatch(/^start: uninitialized → creating\n/);
  expect(wake.stdout).toMatch(/^failed/m);
  expect(wake.stderr).toMatch(/^clawrun wake: failed: \S/);
  const status = await clawrun(["status"], env());
  expect(status.code).toBe(0);
  expect(status.stdout.split("\n")[0]).toMatch(/^failed +failed since .* · /);
  expect(status.stdout).toMatch(/^error +\S/m);
}, 60_000);

it("send --wait gives up after --timeout, saying the message is still in the inbox", async () => {
  const r = await clawrun(
    ["send", "anyone?", "--id", "stuck-1", "--wait", "--timeout", "2"],
    env(),
  );
  expect(r.code).toBe(1);
  expect(r.stdout).toBe("queued stuck-1 (delivered after the wake)\n");
  expect(r.stderr).toContain("stuck-1 is still waiting in the inbox after 2 s");
  const inbox = await clawrun(["inbox", "--json"], env());
  const body = JSON.parse(inbox.stdout) as { pending: { id: string }[] };
  expect(body.pending.map((m) => m.id)).toContain("stuck-1");
}, 60_000);

it("Ctrl-C ends send --wait at once: exit 1, interrupted", async () => {
  const cli = spawnClawrun(["send", "hello?", "--id", "stuck-2", "--wait"], env());
  await cli.waitForOutput("queued stuck-2");
  expect(await cli.interrupt()).toBe(1);
  expect(cli.stderr()).toContain("clawrun send: interrupted");
}, 60_000);
