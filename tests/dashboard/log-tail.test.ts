import { afterEach, describe, expect, it } from "vitest";
import { sidecarLogTail } from "../../src/server/operator/logs";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

/**
 * GET /api/sandbox/logs never fails the page: while a snapshot is taken, after a sleep, or
 * when the kept copy is unreadable, it answers with the lines it has and says why.
 */

let h: LifecycleHarness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});

describe("the sidecar log tail", () => {
  it("answers all through a sleep, and with the kept lines afterwards", async () => {
    h = await lifecycleHarness();
    await h.manager.wake({ reason: "test", trigger: "operator" });
    const answers: string[] = [];
    let sleeping = true;
    const probe = (async () => {
      while (sleeping) {
        const tail = await sidecarLogTail(h.ctx); // throws → the route answers 500
        answers.push(tail.note ?? `live ${tail.lines.length}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    expect((await h.manager.sleep("test")).status).toBe("sleeping");
    sleeping = false;
    await probe;
    expect(answers.length).toBeGreaterThan(0);
    const after = await sidecarLogTail(h.ctx);
    expect(after.lines.length).toBeGreaterThan(0);
    expect(after.note).toMatch(
      /^no sandbox \(the agent is sleeping\); showing the last sandbox's log/,
    );
  }, 60_000);

  it("says there is nothing to show when the kept copy is unreadable", async () => {
    h = await lifecycleHarness();
    await h.store.kv.set("logs:last-sandbox", "{not json", null);
    const tail = await sidecarLogTail(h.ctx);
    expect(tail).toEqual({
      sandboxId: null,
      lines: [],
      note: "no sandbox (the agent is uninitialized)",
    });
  }, 30_000);
});
