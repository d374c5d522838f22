import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { channelApp } from "../support/channel-app";
import { clawrun } from "../support/cli";
import { APPLICATION_ID, type FakeDiscord, startFakeDiscord } from "../support/platforms/discord";
import { startWebhookServer } from "../support/webhook-server";

/**
 * `clawrun channels` as a child process: registers Discord's /ask and interactions endpoint
 * (the stand-in verifies the endpoint against the real webhook handler) and prints status.
 */
let discord: FakeDiscord;
let app: Awaited<ReturnType<typeof channelApp>>;
let server: Awaited<ReturnType<typeof startWebhookServer>>;

beforeAll(async () => {
  discord = await startFakeDiscord();
  server = await startWebhookServer(() => app.ctx);
  app = await channelApp({
    name: "discord",
    config: {
      apiBaseUrl: discord.apiBaseUrl,
      applicationId: APPLICATION_ID,
      publicKey: discord.publicKeyHex,
    },
    env: { DISCORD_BOT_TOKEN: discord.botToken },
    publicUrl: server.url,
  });
});
afterAll(async () => {
  await server?.stop();
  await app?.close();
  await discord?.stop();
  if (app) rmSync(app.dir, { recursive: true, force: true });
});

const run = (args: string[], env: Record<string, string>) =>
  clawrun(["channels", ...args], {
    CLAWRUN_STATE_DIR: app.dir,
    CLAWRUN_CONFIG: join(app.dir, "clawrun.json"),
    CLAWRUN_PUBLIC_URL: server.url,
    CLAWRUN_LOCAL_TICK: "0",
    ...env,
  }).then((r) => ({ code: r.code, out: r.stdout, err: r.stderr }));

it("registers Discord and prints its status", async () => {
  const r = await run(["register", "discord"], { DISCORD_BOT_TOKEN: discord.botToken });
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  expect(r.out).toContain(
    `discord: registered: /ask registered; Discord sends interactions to ${server.url}/api/webhooks/discord`,
  );
  const status = await run(["status", "discord"], { DISCORD_BOT_TOKEN: discord.botToken });
  expect(status.code).toBe(0);
  expect(status.out).toContain("discord: webhook registered");
  expect(discord.application.interactions_endpoint_url).toBe(`${server.url}/api/webhooks/discord`);
  expect(discord.commands.map((c) => c.name)).toEqual(["ask"]);
});

it("exits 1 and says why when Discord refuses, without printing the token", async () => {
  const r = await run(["register"], { DISCORD_BOT_TOKEN: "a-wrong-bot-token-000000" });
  expect(r.code).toBe(1);
  expect(r.out).toContain("discord: NOT registered: registering /ask failed: HTTP 401");
  expect(r.out + r.err).not.toContain("a-wrong-bot-token");
});

it("names a channel that is not configured", async () => {
  const r = await run(["register", "telegram"], { DISCORD_BOT_TOKEN: discord.botToken });
  expect(r.code).toBe(2);
  expect(r.err).toContain("not configured in clawrun.json: telegram (configured: discord)");
});

it("--json answers one parseable document per command", async () => {
  const r = await run(["status", "discord", "--json"], { DISCORD_BOT_TOKEN: discord.botToken });
  expect(r.code).toBe(0);
  const body = JSON.parse(r.out) as { channels: { name: string; webhookRegistered: boolean }[] };
  expect(body.channels).toEqual([
    expect.objectContaining({ name: "discord", webhookRegistered: true }),
  ]);
});

it("needs a subcommand and refuses unknown flags, naming them (exit 2)", async () => {
  const none = await run([], {});
  expect(none.code).toBe(2);
  expect(none.err).toContain('"clawrun channels" needs one of: register, status');
  const flag = await run(["register", "--force"], {});
  expect(flag.code).toBe(2);
  expect(flag.err).toContain('unknown flag --force for "clawrun channels register"');
});
