import { afterAll, beforeAll, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { clawrun } from "../support/cli";
import { APPLICATION_ID, type FakeDiscord, startFakeDiscord } from "../support/platforms/discord";

/**
 * `clawrun channels` as a child process against the real production server's operator API:
 * the deployment holds the platform token, registers Discord's /ask and interactions endpoint
 * (the stand-in verifies the endpoint against the server's real webhook route) and reports
 * the status. The CLI has only the deployment's URL and operator secret.
 */
let discord: FakeDiscord;
let server: ClawrunServer;
/** The same deployment with a bot token Discord refuses. */
let refused: ClawrunServer;

const discordDeployment = (botToken: string) =>
  startClawrun({
    config: {
      channels: {
        generic: {},
        discord: {
          apiBaseUrl: discord.apiBaseUrl,
          applicationId: APPLICATION_ID,
          publicKey: discord.publicKeyHex,
        },
      },
    },
    env: { DISCORD_BOT_TOKEN: botToken },
  });

beforeAll(async () => {
  discord = await startFakeDiscord();
  [server, refused] = await Promise.all([
    discordDeployment(discord.botToken),
    discordDeployment("a-wrong-bot-token-000000"),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), refused?.stop()]);
  await discord?.stop();
});

/** Only what any operator's machine has: the URL and the operator secret. */
const run = (args: string[], at: ClawrunServer = server) =>
  clawrun(["channels", ...args], {
    CLAWRUN_URL: at.url,
    ADMIN_SECRET: at.secrets.admin,
  }).then((r) => ({ code: r.code, out: r.stdout, err: r.stderr }));

it("registers Discord through the deployment and prints its status", async () => {
  const r = await run(["register", "discord"]);
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  expect(r.out).toContain(
    `discord: registered: /ask registered; Discord sends interactions to ${server.url}/api/webhooks/discord`,
  );
  const status = await run(["status", "discord"]);
  expect(status.code).toBe(0);
  expect(status.out).toContain("discord: webhook registered");
  expect(discord.application.interactions_endpoint_url).toBe(`${server.url}/api/webhooks/discord`);
  expect(discord.commands.map((c) => c.name)).toEqual(["ask"]);
});

it("with no name registers every channel, saying which need nothing", async () => {
  const r = await run(["register"]);
  expect(r.code).toBe(0);
  expect(r.out).toContain("generic: nothing to register");
  expect(r.out).toContain("discord: registered");
});

it("exits 1 and says why when Discord refuses, without printing the token", async () => {
  const r = await run(["register", "discord"], refused);
  expect(r.code).toBe(1);
  expect(r.out).toContain("discord: NOT registered: registering /ask failed: HTTP 401");
  expect(r.out + r.err).not.toContain("a-wrong-bot-token");
});

it("names a channel the deployment does not have, and registers nothing (exit 2)", async () => {
  const writes = () => discord.calls.filter((c) => c.method !== "GET").length;
  const before = writes();
  const r = await run(["register", "discord", "telegram"]);
  expect(r.code).toBe(2);
  expect(r.err).toContain(`not configured at ${server.url}: telegram (configured: `);
  expect(writes()).toBe(before);
});

it("--json answers one parseable document per command", async () => {
  const r = await run(["status", "discord", "--json"]);
  expect(r.code).toBe(0);
  const body = JSON.parse(r.out) as { channels: { name: string; webhookRegistered: boolean }[] };
  expect(body.channels).toEqual([
    expect.objectContaining({ name: "discord", webhookRegistered: true }),
  ]);
});

it("needs a subcommand and refuses unknown flags, naming them (exit 2)", async () => {
  const none = await run([]);
  expect(none.code).toBe(2);
  expect(none.err).toContain('"clawrun channels" needs one of: register, status');
  const flag = await run(["register", "--force"]);
  expect(flag.code).toBe(2);
  expect(flag.err).toContain('unknown flag --force for "clawrun channels register"');
});
