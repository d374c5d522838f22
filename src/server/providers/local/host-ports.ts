import { readFileSync } from "node:fs";
import { createServer } from "node:net";

export interface PortRange {
  min: number;
  max: number;
}

/**
 * Host ports are drawn below the kernel's ephemeral range, so an outgoing connection of
 * some other program cannot take the port between allocation and the daemon's listen().
 */
export function allocationRange(ephemeral: PortRange | null): PortRange {
  const min = 20_000;
  const low = ephemeral?.min ?? 32_768;
  return low - 1 - min >= 1_000 ? { min, max: low - 1 } : { min: 10_000, max: 19_999 };
}

/** Pure: a random port of `range` not in `taken`, or null when `random` keeps hitting taken ones. */
export function pickPort(range: PortRange, taken: ReadonlySet<number>, random: () => number) {
  const size = range.max - range.min + 1;
  for (let attempt = 0; attempt < 64; attempt++) {
    const port = range.min + Math.floor(random() * size);
    if (!taken.has(port)) return port;
  }
  return null;
}

export function readEphemeralRange(): PortRange | null {
  try {
    const [min, max] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8")
      .trim()
      .split(/\s+/)
      .map(Number);
    return min && max ? { min, max } : null;
  } catch {
    return null;
  }
}

export function canBind(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * One free host port per declared port. `taken` holds ports other sandboxes were given
 * (they may not be listening yet, so a bind test alone would not see them).
 */
export async function allocateHostPorts(
  declared: readonly number[],
  taken: ReadonlySet<number>,
): Promise<Record<string, number>> {
  const range = allocationRange(readEphemeralRange());
  const used = new Set(taken);
  const out: Record<string, number> = {};
  for (const port of new Set(declared)) {
    for (let tries = 0; ; tries++) {
      const candidate = pickPort(range, used, Math.random);
      if (candidate === null || tries >= 200) {
        throw new Error(`no free host port in ${range.min}-${range.max} for sandbox port ${port}`);
      }
      used.add(candidate);
      if (await canBind(candidate)) {
        out[String(port)] = candidate;
        break;
      }
    }
  }
  return out;
}
