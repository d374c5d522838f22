import { afterEach, describe, expect, it } from "vitest";
import { liveFeed } from "../../src/server/dashboard/live-feed";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

/**
 * The dashboard's server-sent events against the real context (SQLite, local provider,
 * sidecar): every status of a wake is pushed, a quiet feed pings, and it ends on abort.
 */

let h: LifecycleHarness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});

interface Message {
  event: string;
  data: { overview?: { instance: { status: string } } };
}

/** Reads SSE messages from the stream into `out` until it ends. */
async function collect(stream: ReadableStream<Uint8Array>, out: Message[]): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) out.push({ event, data: JSON.parse(data) });
      end = buffer.indexOf("\n\n");
    }
  }
}

describe("GET /api/sandbox/stream (liveFeed)", () => {
  it("pushes every status of a wake, pings while quiet, and ends on abort", async () => {
    h = await lifecycleHarness();
    const abort = new AbortController();
    const messages: Message[] = [];
    const done = collect(
      // A poll slower than the wake's steps: transitions must still be complete.
      liveFeed(h.ctx, abort.signal, { pollMs: 400, refreshMs: 60_000, pingMs: 150, maxMs: 60_000 }),
      messages,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    expect(messages[0]?.event).toBe("overview");
    expect(messages.some((m) => m.event === "ping")).toBe(true);

    expect((await h.manager.wake({ reason: "test", trigger: "operator" })).status).toBe("running");
    await new Promise((r) => setTimeout(r, 1_000)); // at least two polls
    abort.abort();
    await done;
    const statuses = messages
      .filter((m) => m.event === "overview")
      .map((m) => m.data.overview?.instance.status);
    expect(statuses[0]).toBe("uninitialized");
    expect(statuses.at(-1)).toBe("running");
    // However fast the wake, the pushes name every status it passed through, in order.
    const entered = messages.flatMap(
      (m) => (m.data as { transitions?: { status: string }[] }).transitions ?? [],
    );
    expect(entered.map((t) => t.status)).toEqual(["creating", "starting", "running"]);
  }, 60_000);
});
