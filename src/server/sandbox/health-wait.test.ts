import { afterEach, describe, expect, it } from "vitest";
import { startTestDoor, type TestDoor } from "../../../tests/support/door";
import type { SidecarHealth } from "../../protocol/health";
import { ChangeSignal } from "../../sidecar/change-signal";
import { waitForHealth } from "./health-wait";

/**
 * A sidecar door whose daemon status follows `status(n)` for its n-th health answer (from 1).
 * The door itself (signing, routes) is tested in src/sidecar/door-server.test.ts and
 * sidecar-client.test.ts; here only the waiting logic is.
 */
function sidecar(status: (n: number) => SidecarHealth["daemon"]["status"] | "unreachable") {
  let answers = 0;
  return {
    health: async (): Promise<SidecarHealth> => {
      const s = status(++answers);
      if (s === "unreachable") throw new Error("sidecar did not answer: ECONNREFUSED");
      return {
        ok: s === "running",
        daemon: { status: s, pid: 1, restarts: s === "failed" ? 5 : 0 },
        heartbeat: { lastTick: null, lastSuccess: null },
        uptime: 0,
      };
    },
  };
}

describe("waitForHealth", () => {
  it("with no readiness check, an open port is healthy; it reports when each step was seen", async () => {
    const url = sidecar((n) => (n <= 3 ? "starting" : "running"));
    const out = await waitForHealth(url, { budgetMs: 10_000, pollMs: 20 });
    expect(out.ok).toBe(true);
    // Three "starting" answers, 20 ms apart at least, before the daemon was seen running.
    expect(out.phases.daemonMs).toBeGreaterThanOrEqual((out.phases.sidecarMs ?? 0) + 40);
    expect(out.waitedMs).toBe(out.phases.daemonMs);
  });

  it("asks the agent's readiness only once the daemon runs, and is healthy when it says so", async () => {
    let answers = 0;
    const url = sidecar((n) => {
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
    const url = sidecar(() => "running");
    const out = await waitForHealth(url, { budgetMs: 400, pollMs: 20, ready: async () => false });
    expect(out).toMatchObject({
      ok: false,
      reason: "not healthy within 0 s (daemon is listening but the agent is not ready yet)",
    });
  });

  it("breaks early when the supervisor reports the daemon failed", async () => {
    const url = sidecar((n) => (n <= 2 ? "starting" : "failed"));
    const out = await waitForHealth(url, { budgetMs: 10_000, pollMs: 20, ready: async () => true });
    expect(out).toMatchObject({ ok: false, reason: "daemon failed after 5 restarts" });
    expect(out.waitedMs).toBeLessThan(5_000);
    expect(out.phases.daemonMs).toBeNull();
  });
});

it("waitForHealth reports an unreachable sidecar with its reason, and sees it once it answers", async () => {
  const never = await waitForHealth(
    sidecar(() => "unreachable"),
    { budgetMs: 200, pollMs: 20 },
  );
  expect(never).toMatchObject({ ok: false, phases: { sidecarMs: null } });
  expect(never.ok === false && never.reason).toMatch(/sidecar unreachable: .*ECONNREFUSED/);
  const later = await waitForHealth(
    sidecar((n) => (n <= 2 ? "unreachable" : "running")),
    { budgetMs: 10_000, pollMs: 20 },
  );
  expect(later.ok).toBe(true);
  expect(later.phases.sidecarMs).toBeGreaterThan(0);
});

describe("waitForHealth through the real door, which holds the answer while the daemon starts", () => {
  let door: TestDoor | null = null;
  afterEach(async () => {
    await door?.close();
    door = null;
  });

  it("hears the daemon running the moment its status changes, not at the next poll", async () => {
    let status: SidecarHealth["daemon"]["status"] = "starting";
    let asked = 0;
    const change = new ChangeSignal();
    door = await startTestDoor("http://127.0.0.1:9", {
      health: () => {
        asked++;
        return {
          ok: status === "running",
          daemon: { status, pid: 1, restarts: 0 },
          heartbeat: { lastTick: null, lastSuccess: null },
          uptime: 0,
        };
      },
      healthChanged: (ms) => change.wait(ms),
    });
    setTimeout(() => {
      status = "running";
      change.notify();
    }, 150);
    // A poll this coarse would see "running" only at 600 ms; the held request sees it at once.
    const out = await waitForHealth(door.client, { budgetMs: 10_000, pollMs: 600 });
    expect(out.ok).toBe(true);
    expect(out.waitedMs).toBeGreaterThanOrEqual(140);
    expect(out.waitedMs).toBeLessThan(450);
    expect(out.phases.sidecarMs).toBeLessThan(100);
    expect(asked).toBeLessThanOrEqual(3); // one held request (its status read before and after)
  });
});
