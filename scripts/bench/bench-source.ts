import { join } from "node:path";

/**
 * The environment a bench's in-process ClawRun (createAppContext) reads: its state and
 * clawrun.json in `dir`, no background tick (the bench drives the lifecycle), and whatever
 * the bench adds. Heartbeats go nowhere unless `CLAWRUN_PUBLIC_URL` is given.
 */
export function benchSource(
  dir: string,
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    CLAWRUN_STATE_DIR: dir,
    CLAWRUN_CONFIG: join(dir, "clawrun.json"),
    CLAWRUN_PUBLIC_URL: "http://127.0.0.1:1",
    CLAWRUN_LOCAL_TICK: "0",
    ...extra,
  };
}
