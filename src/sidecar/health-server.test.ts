import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type SidecarHealth, sidecarHealthSchema } from "../protocol/health";
import { closeServer, createHealthServer, listen } from "./health-server";

const HEALTH: SidecarHealth = {
  ok: true,
  daemon: { status: "running", pid: 1234, restarts: 0 },
  heartbeat: { lastTick: 1710000060000, lastSuccess: true },
  uptime: 3600,
};

const servers: Array<ReturnType<typeof createHealthServer>> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(closeServer));
});

async function serve(get: () => SidecarHealth): Promise<string> {
  const server = createHealthServer(get);
  servers.push(server);
  await listen(server, 0, "127.0.0.1");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("health server", () => {
  it("GET /health returns the health JSON", async () => {
    const base = await serve(() => HEALTH);
    const res = await fetch(`${base}/health?probe=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = await res.json();
    expect(body).toEqual(HEALTH);
    expect(sidecarHealthSchema.parse(body)).toEqual(HEALTH);
  });

  it("answers 404 for other paths and 405 with Allow for other methods, as JSON errors", async () => {
    const base = await serve(() => HEALTH);
    const missing = await fetch(`${base}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "not_found" } });
    for (const method of ["POST", "PUT", "DELETE"]) {
      const res = await fetch(`${base}/health`, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("GET");
      expect(await res.json()).toMatchObject({ error: { code: "method_not_allowed" } });
    }
  });

  it("reports a failing state getter as a JSON 500", async () => {
    const base = await serve(() => {
      throw new Error("boom");
    });
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: "internal", message: "boom" } });
  });

  it("rejects when the port is taken", async () => {
    const base = await serve(() => HEALTH);
    const port = Number(new URL(base).port);
    const other = createHealthServer(() => HEALTH);
    await expect(listen(other, port, "127.0.0.1")).rejects.toThrow(/EADDRINUSE/);
  });
});
