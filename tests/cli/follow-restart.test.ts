import { afterAll, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { clawrun, type RunningCli, spawnClawrun } from "../support/cli";
import { waitFor } from "../support/free-port";

/**
 * `clawrun events --follow` outlives a restart of the server: it says once that the server
 * is gone, keeps trying, says when it is back and goes on printing what happens there.
 */

const servers: ClawrunServer[] = [];
let follow: RunningCli | undefined;
afterAll(async () => {
  await follow?.interrupt();
  for (const s of servers) await s.stop();
});

it("events --follow survives a server restart", async () => {
  const first = await startClawrun({});
  servers.push(first);
  const env = {
    CLAWRUN_URL: first.url,
    ADMIN_SECRET: first.secrets.admin,
    CLAWRUN_WEBHOOK_SECRET: first.secrets.webhook,
  };
  const running = spawnClawrun(["events", "--follow", "--interval", "200"], env);
  follow = running;
  const stderrHas = (text: string) => async () => running.stderr().includes(text);
  await waitFor("--follow to start", stderrHas("(following"), 20_000);

  await first.stop();
  await waitFor("the loss to be said", stderrHas(`cannot reach ClawRun at ${first.url}`), 20_000);
  expect(running.child.exitCode).toBeNull();

  // The same deployment back on the same port (same operator secret), state started afresh.
  const second = await startClawrun({
    port: first.port,
    env: { ADMIN_SECRET: env.ADMIN_SECRET, CLAWRUN_WEBHOOK_SECRET: env.CLAWRUN_WEBHOOK_SECRET },
  });
  servers.push(second);
  await waitFor("the return to be said", stderrHas("answers again"), 20_000);
  const wake = await clawrun(["wake"], env);
  expect(wake.code, wake.stderr).toBe(0);
  await running.waitForOutput(/status\.creating: /);
  expect(await running.interrupt()).toBe(0);
  expect(running.stderr().match(/cannot reach ClawRun/g)).toHaveLength(1); // said once
}, 120_000);
