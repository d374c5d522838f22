import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { startVercelSandboxEmulator } from "../support/vercel-sandbox-emulator";

/**
 * The production build with `sandbox.provider: "vercel"`: the bundled SDK reaches the
 * Vercel Sandbox API emulator through CLAWRUN_VERCEL_API_URL, and missing or wrong
 * credentials are named in /api/health.
 */

const emulator = await startVercelSandboxEmulator();
afterAll(() => emulator.close());
let server: ClawrunServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});
const config = { sandbox: { provider: "vercel" } };

describe("GET /api/health with the vercel provider", () => {
  it("proves the credentials with one API call through the configured base URL", async () => {
    server = await startClawrun({ config, env: emulator.env });
    const before = emulator.requests.length;
    const res = await fetch(`${server.url}/api/health`);
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body.checks.provider).toEqual({
      ok: true,
      detail: expect.stringMatching(/^vercel: ok in \d+ ms$/),
    });
    expect(emulator.requests.slice(before)).toEqual([
      {
        method: "GET",
        path: "/v2/sandboxes",
        query: expect.stringContaining("tags=clawrun-instance%3Aclawrun"),
      },
    ]);
    expect(emulator.unknownRequests).toEqual([]);
  });

  it("reports a token Vercel refuses, in the API's words", async () => {
    server = await startClawrun({ config, env: { ...emulator.env, VERCEL_TOKEN: "revoked" } });
    const body = await (await fetch(`${server.url}/api/health`)).json();
    expect(body.ok).toBe(false);
    expect(body.checks.provider).toEqual({
      ok: false,
      detail:
        "vercel: Vercel Sandbox API refused to list sandboxes (health check): Not authorized (HTTP 403, forbidden)",
    });
  });

  it("names the missing variable of a partial credential triple", async () => {
    server = await startClawrun({
      config,
      env: { VERCEL_TOKEN: "t", VERCEL_PROJECT_ID: "prj", CLAWRUN_VERCEL_API_URL: emulator.url },
    });
    const res = await fetch(`${server.url}/api/health`);
    expect(res.status).toBe(503);
    expect((await res.json()).checks.config.detail).toContain(
      "environment: VERCEL_TEAM_ID is not set (set together with VERCEL_TOKEN and VERCEL_PROJECT_ID (all three or none)) (the vercel provider needs it)",
    );
  });
});
