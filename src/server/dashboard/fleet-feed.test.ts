import { describe, expect, it } from "vitest";
import type { FleetRow } from "./fleet";
import { fleetFeed, fleetMarker } from "./fleet-feed";

const row = (name: string, status: FleetRow["status"]) => ({ name, status }) as FleetRow;
const T = { pollMs: 10, refreshMs: 10_000, pingMs: 40, maxMs: 10_000 };

/** Reads SSE messages until `count` events arrived, as [event, data] pairs. */
async function read(stream: ReadableStream<Uint8Array>, count: number) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const events: [string, unknown][] = [];
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
    const parts = text.split("\n\n");
    text = parts.pop() ?? "";
    for (const p of parts) {
      const m = /^event: (\S+)\ndata: (.*)$/s.exec(p);
      if (m) events.push([m[1] as string, JSON.parse(m[2] as string)]);
    }
  }
  await reader.cancel();
  return events;
}

describe("the fleet feed", () => {
  it("tells apart markers that differ only in which agent moved", () => {
    expect(fleetMarker(["a", ""])).not.toBe(fleetMarker(["", "a"]));
    expect(fleetMarker(["x", "y"])).toBe(fleetMarker(["x", "y"]));
  });

  it("pushes every row when any agent's marker moves, and only pings while none does", async () => {
    let markers = ["1", "7"];
    let rowReads = 0;
    let status: FleetRow["status"] = "sleeping";
    let polls = 0;
    // The feed's clock moves one poll interval per poll, so pings fall on the same polls
    // however slowly a loaded machine runs the timers.
    let now = 0;
    const controller = new AbortController();
    const stream = fleetFeed(
      {
        markers: async () => {
          polls++;
          now += T.pollMs;
          // The second agent moves once, after a few quiet polls.
          if (polls === 8) {
            markers = ["1", "8"];
            status = "running";
          }
          return markers;
        },
        rows: async () => {
          rowReads++;
          return [row("clawrun", "sleeping"), row("team", status)];
        },
        warn: () => undefined,
      },
      controller.signal,
      T,
      () => now,
    );
    const events = await read(stream, 3);
    controller.abort();
    expect(events.map(([e]) => e)).toEqual(["fleet", "ping", "fleet"]);
    const [first, , second] = events.map(([, d]) => d as { agents: FleetRow[] });
    expect(first?.agents.map((a) => a.status)).toEqual(["sleeping", "sleeping"]);
    expect(second?.agents.map((a) => a.status)).toEqual(["sleeping", "running"]);
    expect(rowReads).toBe(2); // quiet polls read only the markers
  });

  it("reports a store fault as a message and keeps polling", async () => {
    let calls = 0;
    const warned: string[] = [];
    const controller = new AbortController();
    const stream = fleetFeed(
      {
        markers: async () => {
          calls++;
          if (calls === 1) throw new Error("down");
          return ["1"];
        },
        rows: async () => [row("clawrun", "running")],
        warn: (m) => warned.push(m),
      },
      controller.signal,
      T,
    );
    const events = await read(stream, 2);
    controller.abort();
    expect(events.map(([e]) => e)).toEqual(["fault", "fleet"]);
    expect(warned).toEqual(["fleet live feed: poll failed"]);
  });
});
