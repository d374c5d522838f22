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

/** A sidecar health server whose daemon status follows `status(n)` for its n-th answer (from 1). */
async function sidecar(status: (n: number) => SidecarHealth["daemon"]["status"]) {
  let answers = 0;
  server = createServer((_req, res) => {
    const s = status(++answers);
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
    const url = await sidecar((n) => (n <= 3 ? "starting" : "running"));
    const out = await waitForHealth(url, { budgetMs: 10_000, pollMs: 20 });
    expect(out.ok).toBe(true);
    // Three "starting" answers, 20 ms apart at least, before the daemon was seen running.
    expect(out.phases.daemonMs).toBeGreaterThanOrEqual((out.phases.sidecarMs ?? 0) + 40);
    expect(out.waitedMs).toBe(out.phases.daemonMs);
  });

  it("asks the agent's readiness only once the daemon runs, and is healthy when it says so", async () => {
    let answers = 0;
    const url = await sidecar((n) => {
      answers = n;
      return n <= 3 ? "starting" : "running";
    });
    const askedAfter: number[] = [];
    const out = await waitForHealth(url, {
      budgetMs: 10_000,
      pollMs: 20,
      ready: async () => {
        askedAfter.push(answers);
        return askedAfter.length >= 4;
      },
    });
    expect(out.ok).toBe(true);
    // Asked on the 4th, 5th, 6th and 7th answer: never while the daemon was starting.
    expect(askedAfter).toEqual([4, 5, 6, 7]);
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
    const url = await sidecar((n) => (n <= 2 ? "starting" : "failed"));
    const out = await waitForHealth(url, { budgetMs: 10_000, pollMs: 20, ready: async () => true });
    expect(out).toMatchObject({ ok: false, reason: "daemon failed after 5 restarts" });
    expect(out.waitedMs).toBeLessThan(5_000);
    expect(out.phases.daemonMs).toBeNull();
  });
});
