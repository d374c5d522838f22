import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalProvider } from "../../src/server/providers/local/local-provider";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { waitFor } from "../support/free-port";

/**
 * With no timer in the server (CLAWRUN_LOCAL_TICK=0, as on Vercel's Hobby plan), a sandbox that
 * dies is noticed on the next dashboard view: the lazy tick runs after the response
 * (docs/deploy.md, "No per-minute cron").
 */

let server: ClawrunServer;

beforeAll(async () => {
  server = await startClawrun({
    env: { CLAWRUN_LOCAL_TICK: "0" },
    // Lazy ticks may run every second; heartbeats (which also trigger them) keep the seed's
    // minute, so none arrives in the window where the test watches nothing happen.
    timings: { tickIntervalMs: 1_000 },
  });
});

afterAll(async () => {
  await server?.stop();
});

type Overview = { instance: { status: string; sandboxId: string | null } };

async function operator<T>(path: string, method = "GET"): Promise<T> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${server.secrets.admin}`,
      ...(method === "POST" ? { "content-type": "application/json" } : {}),
    },
    body: method === "POST" ? "{}" : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The state as /api/health reports it (health runs no tick). */
async function healthStatus(): Promise<string> {
  return (await (await fetch(`${server.url}/api/health`)).json()).instance.status;
}

describe("lazy checks where no timer runs", () => {
  it("notices a sandbox that died on the next dashboard view", async () => {
    await operator("/api/sandbox/start", "POST");
    const running = await waitFor(
      "the agent running",
      async () => {
        const o = await operator<Overview>("/api/sandbox");
        return o.instance.status === "running" ? o.instance : null;
      },
      30_000,
      200,
    );
    // Let the first heartbeat's and the last view's lazy ticks finish while the sandbox lives.
    await new Promise((r) => setTimeout(r, 2_000));
    // The sandbox stops behind ClawRun's back (a host restart, a native TTL).
    const provider = new LocalProvider({
      stateDir: server.stateDir,
      logger: pino({ level: "silent" }),
    });
    await (await provider.get(running.sandboxId as string)).stop();

    // No timer: nothing notices it while nobody asks.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await healthStatus()).toBe("running");

    // A dashboard view: the lazy tick after it marks the sandbox dead and puts the agent to rest.
    await operator("/api/sandbox");
    const after = await waitFor(
      "the dead sandbox noticed",
      async () => {
        const s = await healthStatus();
        return s !== "running" ? s : null;
      },
      15_000,
      200,
    );
    expect(["sleeping", "failed", "uninitialized"]).toContain(after);
    const events = await operator<{ events: { message: string }[] }>("/api/sandbox/events");
    expect(events.events.some((e) => /without ClawRun stopping it/.test(e.message))).toBe(true);
  }, 90_000);
});
