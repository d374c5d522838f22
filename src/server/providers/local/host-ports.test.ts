import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { allocateHostPorts, allocationRange, canBind, pickPort } from "./host-ports";

describe("allocationRange", () => {
  it.each([
    [
      { min: 32768, max: 60999 },
      { min: 20000, max: 32767 },
    ],
    [null, { min: 20000, max: 32767 }],
    [
      { min: 20500, max: 60999 },
      { min: 10000, max: 19999 },
    ],
  ])("below the ephemeral range %j → %j", (ephemeral, expected) => {
    expect(allocationRange(ephemeral)).toEqual(expected);
  });
});

describe("pickPort", () => {
  it("maps the random draw onto the range", () => {
    expect(pickPort({ min: 100, max: 199 }, new Set(), () => 0)).toBe(100);
    expect(pickPort({ min: 100, max: 199 }, new Set(), () => 0.999)).toBe(199);
  });

  it("skips taken ports and gives up when everything is taken", () => {
    const draws = [0, 0, 0.5];
    expect(pickPort({ min: 100, max: 101 }, new Set([100]), () => draws.shift() ?? 0)).toBe(101);
    expect(pickPort({ min: 100, max: 101 }, new Set([100, 101]), Math.random)).toBeNull();
  });
});

describe("allocateHostPorts", () => {
  it("gives each declared port its own bindable host port, avoiding taken ones", async () => {
    const taken = new Set<number>();
    for (let p = 20000; p < 32000; p += 2) taken.add(p);
    const ports = await allocateHostPorts([3000, 3001, 3000], taken);
    expect(Object.keys(ports).sort()).toEqual(["3000", "3001"]);
    const values = Object.values(ports);
    expect(new Set(values).size).toBe(2);
    for (const port of values) {
      expect(taken.has(port)).toBe(false);
      expect(await canBind(port)).toBe(true);
    }
  });

  it("does not hand out a port something already listens on", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const busy = (server.address() as { port: number }).port;
    expect(await canBind(busy)).toBe(false);
    server.close();
  });
});
