import {
  attempt,
  boolean,
  type Fields,
  integer,
  nullable,
  object,
  oneOf,
  type Parsed,
  string,
} from "./validate";

export const DAEMON_STATUSES = ["starting", "running", "stopped", "failed"] as const;
export type DaemonStatus = (typeof DAEMON_STATUSES)[number];

/** Body the sidecar POSTs to `<parent>/api/heartbeat` (docs/sidecar.md, exactly these fields). */
export interface HeartbeatBody {
  sandboxId: string;
  /** Epoch ms of the agent's last activity: a file change or a delivery through the door. */
  lastChangedAt: number;
  sandboxCreatedAt: number;
  root: string;
  daemonStatus: DaemonStatus;
  daemonRestarts: number;
  /** The save this sandbox was restored from (src/protocol/generation.ts): 0 none, null unreadable. */
  generation?: number | null;
  /**
   * True on the first heartbeat after a restarted daemon is running again, so the server
   * resumes deliveries that found it unreachable at once (issue 22, item 10). Left out
   * otherwise, and by older sidecars.
   */
  daemonReturned?: boolean;
  /**
   * Epoch ms at which the oldest delivery still open through the door started: the agent is
   * answering a message, which is activity (issue 22, item 4). Left out when none is open,
   * and by older sidecars.
   */
  openDeliverySince?: number;
}

const HEARTBEAT_KEYS = [
  "sandboxId",
  "lastChangedAt",
  "sandboxCreatedAt",
  "root",
  "daemonStatus",
  "daemonRestarts",
  "generation",
  "daemonReturned",
  "openDeliverySince",
] as const;

/** Hand-checked (src/protocol/validate.ts): a strict object, every field named on error. */
export function parseHeartbeatBody(json: unknown): Parsed<HeartbeatBody> {
  return attempt(() => {
    const o = object(json, "", HEARTBEAT_KEYS);
    return {
      sandboxId: string(o, "sandboxId", "", { min: 1, max: 200 }),
      lastChangedAt: integer(o, "lastChangedAt", "", { min: 0 }),
      sandboxCreatedAt: integer(o, "sandboxCreatedAt", "", { min: 0 }),
      root: string(o, "root", "", { min: 1, max: 4096 }),
      daemonStatus: oneOf(o, "daemonStatus", "", DAEMON_STATUSES),
      daemonRestarts: integer(o, "daemonRestarts", "", { min: 0 }),
      ...generationField(o, ""),
      ...(o.daemonReturned === undefined
        ? {}
        : { daemonReturned: boolean(o, "daemonReturned", "") }),
      ...(o.openDeliverySince === undefined
        ? {}
        : { openDeliverySince: integer(o, "openDeliverySince", "", { min: 0 }) }),
    };
  });
}

/**
 * The optional `generation` of a heartbeat or health answer (restore attestation,
 * docs/lifecycle.md): an integer ≥ 0, or null when the marker is damaged; left out when absent
 * (a sidecar older than attestation).
 */
export function generationField(o: Fields, path: string): { generation?: number | null } {
  if (o.generation === undefined) return {};
  return { generation: nullable(o, "generation", (x, k) => integer(x, k, path, { min: 0 })) };
}

export const HEARTBEAT_ACTIONS = ["extend", "none", "stop"] as const;

/** What the server answers; `stop` tells a sidecar of a sandbox that is no longer wanted to expect shutdown. */
export interface HeartbeatResponse {
  action: (typeof HEARTBEAT_ACTIONS)[number];
  reason: string;
}

export function parseHeartbeatResponse(json: unknown): Parsed<HeartbeatResponse> {
  return attempt(() => {
    const o = object(json, "");
    return { action: oneOf(o, "action", "", HEARTBEAT_ACTIONS), reason: string(o, "reason", "") };
  });
}

export const HEARTBEAT_MAX_BYTES = 64 * 1024;
