import { afterEach, describe, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";

let server: ClawrunServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

describe("GET /api/health", () => {
  it("reports version, uptime, the store and provider in use, and the instance status", async () => {
    server = await startClawrun();
    const res = await fetch(`${server.url}/api/health`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      ok: true,
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      uptimeSeconds: expect.any(Number),
      instance: { name: "clawrun", status: "uninitialized" },
      checks: {
        config: { ok: true },
        store: { ok: true, detail: expect.stringMatching(/^sqlite .*store\.db: ok in \d+ ms$/) },
        provider: { ok: true, detail: expect.stringMatching(/^local: ok/) },
      },
    });
  });

  it("answers 503 naming the failing part when clawrun.json is broken", async () => {
    server = await startClawrun({ config: { sandbox: { activeDuration: "5m" } } });
    const res = await fetch(`${server.url}/api/health`);
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.ok).toBe(false);
    expect(body.checks.config).toEqual({
      ok: false,
      detail: expect.stringContaining(
        'sandbox.activeDuration: expected a positive integer, got "5m"',
      ),
    });
  });
});
