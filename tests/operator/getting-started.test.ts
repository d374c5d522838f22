import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { webhookCurl } from "../../app/_dashboard/webhook-curl";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { waitFor } from "../support/free-port";

/**
 * The getting-started card against the real server (issue 22, items 13 and 14): its test
 * message's reply is shown (read from the delivery record; no replyUrl configured), and its
 * copy-paste request works in a new user's shell, without the dashboard ever holding a secret.
 */

let server: ClawrunServer;
let webhookSecret: string;
beforeAll(async () => {
  // As `npm run dev` on a fresh machine: the webhook secret is generated into secrets.json.
  server = await startClawrun({ unset: ["CLAWRUN_WEBHOOK_SECRET"] });
  webhookSecret = JSON.parse(readFileSync(join(server.stateDir, "secrets.json"), "utf8"))
    .CLAWRUN_WEBHOOK_SECRET as string;
});
afterAll(async () => {
  await server?.stop();
});

const operator = (path: string, init: RequestInit = {}) =>
  fetch(`${server.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${server.secrets.admin}`, ...init.headers },
  });

/** Pasted into bash with only PATH and HOME: a new user's shell. */
function paste(script: string, extra: Record<string, string> = {}) {
  const r = spawnSync("bash", ["-c", script], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...extra,
    } as unknown as NodeJS.ProcessEnv,
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

it("the test message's reply is shown, though no replyUrl is configured", async () => {
  const sent = await operator("/api/sandbox/test-message", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ text: "are you there?" }),
  });
  const answer = (await sent.json()) as { status: string; id: string; reply?: string };
  // The agent has never started: the message is queued and the reply comes after the wake.
  expect(answer.status).toBe("queued");
  let reply: string | null = null;
  await waitFor(
    "the test message's reply",
    async () => {
      const r = await operator(`/api/sandbox/test-message/${answer.id}`);
      const body = (await r.json()) as { state: string; reply: string | null };
      reply = body.reply;
      return body.state === "replied";
    },
    90_000,
    250,
  );
  expect(reply).toMatch(/^echo: are you there\?/);
  const bad = await operator("/api/sandbox/test-message/cli-123");
  expect(bad.status).toBe(400);
}, 120_000);

it("the copy-paste request works pasted into a shell without CLAWRUN_WEBHOOK_SECRET", async () => {
  const res = await operator("/api/sandbox");
  const overview = (await res.json()) as { webhookSecret: Parameters<typeof webhookCurl>[1] };
  expect(overview.webhookSecret).toEqual({
    from: "file",
    file: join(server.stateDir, "secrets.json"),
  });
  const curl = webhookCurl(`${server.url}/api/webhooks/generic`, overview.webhookSecret);
  expect(curl).not.toContain(webhookSecret); // the page names where the secret is, never it
  const first = paste(curl);
  expect(first.stderr).toBe("");
  expect(JSON.parse(first.stdout).status).toMatch(/^(queued|delivered)$/); // not 401
  // Pasted again at once: a fresh id, so not a duplicate (the id once had only the second).
  expect(JSON.parse(paste(curl).stdout).status).not.toBe("duplicate");

  // A secret given in the environment: the shell must have it, and the request says so
  // instead of being refused with 401.
  const fromEnv = webhookCurl(`${server.url}/api/webhooks/generic`, { from: "environment" });
  const missing = paste(fromEnv);
  expect(missing.code).not.toBe(0);
  expect(missing.stdout).toBe("");
  expect(missing.stderr).toContain("export CLAWRUN_WEBHOOK_SECRET first");
  const given = paste(fromEnv, { CLAWRUN_WEBHOOK_SECRET: webhookSecret });
  expect(JSON.parse(given.stdout).status).toMatch(/^(queued|delivered)$/);
}, 120_000);
