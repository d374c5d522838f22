import { DAEMON_STATUSES, type DaemonStatus, generationField } from "./heartbeat";
import {
  attempt,
  boolean,
  childPath,
  integer,
  nullable,
  number,
  object,
  oneOf,
  type Parsed,
} from "./validate";

/** `GET /health` on the sidecar (docs/sidecar.md). `ok` is true only when the daemon is running. */
export interface SidecarHealth {
  ok: boolean;
  daemon: { status: DaemonStatus; pid: number | null; restarts: number };
  heartbeat: { lastTick: number | null; lastSuccess: boolean | null };
  uptime: number;
  /** The save this sandbox was restored from (src/protocol/generation.ts): 0 none, null unreadable. */
  generation?: number | null;
}

/** Hand-checked (src/protocol/validate.ts). Unknown keys are kept out, not refused (a newer sidecar may add some). */
export function parseSidecarHealth(json: unknown): Parsed<SidecarHealth> {
  return attempt(() => {
    const o = object(json, "");
    const dPath = childPath("", "daemon");
    const d = object(o.daemon, dPath);
    const hPath = childPath("", "heartbeat");
    const h = object(o.heartbeat, hPath);
    return {
      ok: boolean(o, "ok", ""),
      daemon: {
        status: oneOf(d, "status", dPath, DAEMON_STATUSES),
        pid: nullable(d, "pid", (x, k) => integer(x, k, dPath)),
        restarts: integer(d, "restarts", dPath, { min: 0 }),
      },
      heartbeat: {
        lastTick: nullable(h, "lastTick", (x, k) => integer(x, k, hPath)),
        lastSuccess: nullable(h, "lastSuccess", (x, k) => boolean(x, k, hPath)),
      },
      uptime: number(o, "uptime", ""),
      ...generationField(o, ""),
    };
  });
}
