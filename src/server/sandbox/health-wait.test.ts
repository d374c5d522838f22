import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../../../tests/support/free-port";
import type { SidecarHealth } from "../../protocol/health";
import { waitForHealth } from "./health-wait";

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(null)));
  server = null;
});

/** A sidecar health server whose daemon status follows `status(ms since start)`. */
async function sidecar(status: (ms: number) => SidecarHealth["daemon"]["status"]) {
  const started = Date.now();
  server = createServer((_req, res) => {
    const s = status(Date.now() - started);
    const body: SidecarHealth = {
      ok: s === "running",
      daemon: { status: s, pid: 1, restarts: s === "failed" ? 5 : 0 },
      heartbeat: { lastTick: null, lastSuccess: null },
      uptime: 0,
    };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  const port = await freePort();
  await new Promise<void>((r) => server?.listen(port, "127.0.0.1", () => r()));
  return `http://127.0.0.1:${port}/health`;
}

describe("waitForHealth", () => {
  it("with no readiness check, an open port is healthy; it reports when each step was seen", async () => {
    const url = await sidecar((ms) => (ms < 300 ? "starting" : "running"));
    const out = await waitForHealth(url, { budgetMs: 5_000, pollMs: 20 });
    expect(out.ok).toBe(true);
    expect(out.phases.sidecarMs).toBeLessThan(300);
    expect(out.phases.daemonMs).toBeGreaterThanOrEqual(250);
    expect(out.waitedMs).toBe(out.phases.daemonMs);
  });

  it("asks the agent's readiness only once the daemon runs, and is healthy when it says so", async () => {
    const url = await sidecar((ms) => (ms < 200 ? "starting" : "running"));
    const asked: number[] = [];
    const started = Date.now();
    const out = await waitForHealth(url, {
      budgetMs: 5_000,
      pollMs: 20,
      ready: async () => {
        asked.push(Date.now() - started);
        return asked.length >= 4;
      },
    });
    expect(out.ok).toBe(true);
    expect(asked).toHaveLength(4);
    expect(Math.min(...asked)).toBeGreaterThanOrEqual(150);
    expect(out.waitedMs).toBeGreaterThan(out.phases.daemonMs ?? Infinity);
  });

  it("fails at the budget's end with the reason when the agent never becomes ready", async () => {
    const url = await sidecar(() => "running");
    const out = await waitForHealth(url, { budgetMs: 400, pollMs: 20, ready: async () => false });
    expect(out).toMatchObject({
      ok: false,
      reason: "not healthy within 0 s (daemon is listening but the agent is not ready yet)",
    });
  });

  it("breaks early when the supervisor reports the daemon failed", async () => {
    const url = await sidecar((ms) => (ms < 100 ? "starting" : "failed"));
    const out = await waitForHealth(url, { budgetMs: 10_000, pollMs: 20, ready: async () => true });
    expect(out).toMatchObject({ ok: false, reason: "daemon failed after 5 restarts" });
    expect(out.waitedMs).toBeLessThan(5_000);
    expect(out.phases.daemonMs).toBeNull();
  });
});
