import { APIError, Sandbox } from "@vercel/sandbox";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { ProviderError } from "../../src/server/providers/types";
import { vercelConfigSchema, vercelEnvSchema } from "../../src/server/providers/vercel/config";
import { VercelProvider } from "../../src/server/providers/vercel/vercel-provider";
import { fakeOidcToken } from "../support/fake-oidc-token";
import { startVercelSandboxEmulator } from "../support/vercel-sandbox-emulator";

/**
 * The emulator through the SDK itself (not only through the provider): the calls the
 * provider does not make (command wait/logs/kill), the drift check, and authentication.
 */

const emulator = await startVercelSandboxEmulator();
afterAll(() => emulator.close());

const { token, teamId, projectId } = emulator.credentials;
const fetch = ((input: string, init?: RequestInit) =>
  globalThis.fetch(
    input.replace("https://vercel.com/api", emulator.url),
    init,
  )) as typeof globalThis.fetch;
const creds = { token, teamId, projectId, fetch };

async function newSandbox() {
  const sandbox = await Sandbox.create({
    ...creds,
    persistent: false,
    timeout: 60_000,
    ports: [3000],
  });
  return { sandbox, session: sandbox.currentSession() };
}

describe("Vercel Sandbox API emulator, through the SDK", () => {
  it("waits for a detached command and streams its output", async () => {
    const { session } = await newSandbox();
    const cmd = await session.runCommand({
      cmd: "sh",
      args: ["-c", "echo out; sleep 0.2; echo err >&2; exit 4"],
      detached: true,
    });
    expect(cmd.exitCode).toBeNull();
    const done = await cmd.wait();
    expect(done.exitCode).toBe(4);
    expect(await cmd.stdout()).toBe("out\n");
    expect(await cmd.stderr()).toBe("err\n");
    const again = await session.getCommand(cmd.cmdId);
    expect(again.exitCode).toBe(4);
    await session.stop();
  });

  it("follows the logs of a running command as they are written", async () => {
    const { session } = await newSandbox();
    const cmd = await session.runCommand({
      cmd: "sh",
      args: ["-c", "for i in 1 2 3; do echo line $i; sleep 0.2; done"],
      detached: true,
    });
    const lines: string[] = [];
    for await (const log of cmd.logs()) lines.push(log.data);
    expect(lines.join("")).toBe("line 1\nline 2\nline 3\n");
    expect(lines.length).toBeGreaterThan(1); // streamed, not all at once
    await session.stop();
  });

  it("kills a detached command with the signal asked for", async () => {
    const { session } = await newSandbox();
    const cmd = await session.runCommand({ cmd: "sleep", args: ["30"], detached: true });
    await cmd.kill("SIGTERM");
    expect((await cmd.wait()).exitCode).toBe(143);
    await session.stop();
  });

  it("streams a waited command's output and exit code", async () => {
    const { session } = await newSandbox();
    const done = await session.runCommand("sh", ["-c", "printf 'a\\nb'; exit 3"]);
    expect([done.exitCode, await done.stdout()]).toEqual([3, "a\nb"]);
    await session.stop();
    await expect(session.runCommand("true")).rejects.toMatchObject({ response: { status: 410 } });
  });

  it("records a request it does not know and answers it with an error (the drift check)", async () => {
    const before = emulator.unknownRequests.length;
    const { sandbox } = await newSandbox();
    // Forking and listing sessions are SDK calls the emulator does not serve.
    await expect(Sandbox.fork({ ...creds, sourceSandbox: sandbox.name })).rejects.toBeInstanceOf(
      APIError,
    );
    await expect(sandbox.listSessions()).rejects.toBeInstanceOf(APIError);
    // A known route with a field the emulator has never seen is unknown too.
    await expect(
      Sandbox.create({ ...creds, mounts: { "/data": { drive: "d1", mode: "read-write" } } }),
    ).rejects.toBeInstanceOf(APIError);
    expect(emulator.unknownRequests.slice(before)).toEqual([
      { method: "POST", path: `/v2/sandboxes/${sandbox.name}/fork`, reason: "no such route" },
      {
        method: "GET",
        path: "/v2/sandboxes/sessions",
        reason: "sessions listing",
      },
      {
        method: "POST",
        path: "/v3/sandboxes",
        reason: expect.stringMatching(/^body: .*Unrecognized key.*mounts/),
      },
    ]);
    emulator.unknownRequests.splice(before); // deliberate ones; the check below covers the rest
    await sandbox.stop();
  });

  it("refuses a wrong token with 403, which the provider reports with the API's words", async () => {
    const env = vercelEnvSchema.parse({ ...emulator.env, VERCEL_TOKEN: "wrong" });
    const provider = new VercelProvider({
      config: vercelConfigSchema.parse({}),
      env,
      instance: "auth",
      logger: pino({ level: "silent" }),
    });
    await expect(provider.check()).rejects.toThrow(ProviderError);
    await expect(provider.check()).rejects.toThrow(
      "Vercel Sandbox API refused to list sandboxes (health check): Not authorized (HTTP 403, forbidden)",
    );
  });

  it("serves a provider authenticated with an OIDC token, as on Vercel", async () => {
    const oidc = fakeOidcToken({
      owner_id: teamId,
      project_id: projectId,
      exp: Math.floor(Date.now() / 1000) + 3600,
    });
    emulator.acceptToken(oidc, teamId);
    // On Vercel the variable is set; the SDK re-reads it to keep the token fresh.
    const saved = process.env.VERCEL_OIDC_TOKEN;
    process.env.VERCEL_OIDC_TOKEN = oidc;
    try {
      const env = vercelEnvSchema.parse({
        VERCEL_OIDC_TOKEN: oidc,
        CLAWRUN_VERCEL_API_URL: emulator.url,
      });
      const provider = new VercelProvider({
        config: vercelConfigSchema.parse({}),
        env,
        instance: "oidc",
        logger: pino({ level: "silent" }),
      });
      await provider.check();
      const s = await provider.create({ timeoutMs: 60_000, ports: [3000] });
      expect((await s.runCommand("echo", ["via oidc"])).stdout).toBe("via oidc\n");
      await s.stop();
    } finally {
      if (saved === undefined) delete process.env.VERCEL_OIDC_TOKEN;
      else process.env.VERCEL_OIDC_TOKEN = saved;
    }
  });

  it("answered everything else as the SDK's own schemas expect", () => {
    expect(emulator.unknownRequests).toEqual([]);
    expect(emulator.faults).toEqual([]);
  });
});
