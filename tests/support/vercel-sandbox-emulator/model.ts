import { badRequest } from "./http";
import { sdk } from "./sdk-schemas";

/**
 * The emulator's records and how they look on the wire (shapes from the SDK's validators).
 * A sandbox is the named, durable identity; a session is one VM run of it, backed here by a
 * local-provider sandbox whose id is the session id; a snapshot is a local-provider snapshot.
 */

export type SessionPhase = "running" | "stopping" | "snapshotting" | "stopped" | "failed";

/** The network policy as the API reports it (the SDK's NetworkPolicyResponseValidator). */
export type ApiPolicy =
  | { mode: "allow-all" }
  | { mode: "deny-all" }
  | { mode: "custom"; allowedDomains?: string[]; allowedCIDRs?: string[]; deniedCIDRs?: string[] };

export interface EmuSandbox {
  name: string;
  projectId: string;
  persistent: boolean;
  region: string;
  vcpus: number;
  runtime?: string;
  image?: string;
  /** Default session timeout (ms): resumed sessions get it. */
  timeout: number;
  ports: number[];
  env: Record<string, string>;
  networkPolicy: ApiPolicy;
  tags: Record<string, string>;
  createdAt: number;
  updatedAt: number;
  statusUpdatedAt: number;
  currentSessionId: string;
  currentSnapshotId?: string;
  /** The snapshot it was created from: where a sandbox without saved state starts. */
  sourceSnapshotId?: string;
  snapshotExpiration?: number;
  keepLastSnapshots?: { count: number; expiration?: number; deleteEvicted?: boolean };
  /** Wall time of its finished sessions. */
  finishedDurationMs: number;
}

export interface EmuSession {
  id: string;
  sandboxName: string;
  requestedAt: number;
  startedAt: number;
  timeout: number;
  phase: SessionPhase;
  requestedStopAt?: number;
  stoppedAt?: number;
  snapshottedAt?: number;
  sourceSnapshotId?: string;
  networkPolicy: ApiPolicy;
  routes: { port: number; subdomain: string }[];
  /** The backing directory: commands really run there, so it is the session's cwd. */
  cwd: string;
  /** The session's own deadline (the emulated service stops it, saving a persistent one). */
  timer?: NodeJS.Timeout;
  /** An operation that changes the phase (stop, snapshot); others wait for it. */
  busy?: Promise<unknown>;
}

export interface EmuSnapshot {
  id: string;
  projectId: string;
  sandboxName: string;
  sourceSessionId: string;
  region: string;
  sizeBytes: number;
  createdAt: number;
  expiresAt?: number;
}

export const DEFAULT_SNAPSHOT_EXPIRATION_MS = 30 * 24 * 3_600_000;
const MEMORY_PER_VCPU_MB = 2048;

/** The request's policy (checked with the SDK's validator) in the API's answer form. */
export function toApiPolicy(request: unknown): ApiPolicy {
  const parsed = sdk.NetworkPolicyRequest.safeParse(request);
  if (!parsed.success) throw badRequest(`invalid network policy: ${parsed.error.message}`);
  const p = request as {
    mode?: "allow-all" | "deny-all";
    allow?: unknown;
    subnets?: { allow?: string[]; deny?: string[] };
  };
  if (p.mode === "allow-all" || p.mode === "deny-all") return { mode: p.mode };
  if (p.allow !== undefined && !Array.isArray(p.allow)) {
    throw badRequest("emulator: per-domain rules (transform, forwardURL) are not emulated");
  }
  return {
    mode: "custom",
    ...(p.allow ? { allowedDomains: p.allow as string[] } : {}),
    ...(p.subnets?.allow ? { allowedCIDRs: p.subnets.allow } : {}),
    ...(p.subnets?.deny ? { deniedCIDRs: p.subnets.deny } : {}),
  };
}

export function sessionJson(s: EmuSession, sandbox: EmuSandbox, now = Date.now()) {
  const ended = s.stoppedAt ?? (s.phase === "stopped" || s.phase === "failed" ? now : undefined);
  return {
    id: s.id,
    memory: sandbox.vcpus * MEMORY_PER_VCPU_MB,
    vcpus: sandbox.vcpus,
    region: sandbox.region,
    ...(sandbox.runtime ? { runtime: sandbox.runtime } : {}),
    timeout: s.timeout,
    status: s.phase,
    requestedAt: s.requestedAt,
    startedAt: s.startedAt,
    createdAt: s.requestedAt,
    updatedAt: now,
    cwd: s.cwd,
    networkPolicy: s.networkPolicy,
    ...(s.requestedStopAt !== undefined ? { requestedStopAt: s.requestedStopAt } : {}),
    ...(ended !== undefined ? { stoppedAt: ended, duration: ended - s.startedAt } : {}),
    ...(s.snapshottedAt !== undefined ? { snapshottedAt: s.snapshottedAt } : {}),
    ...(s.sourceSnapshotId !== undefined ? { sourceSnapshotId: s.sourceSnapshotId } : {}),
  };
}

export function sandboxJson(sb: EmuSandbox, current: EmuSession | undefined, now = Date.now()) {
  const running = current && current.stoppedAt === undefined ? now - current.startedAt : 0;
  return {
    name: sb.name,
    persistent: sb.persistent,
    region: sb.region,
    vcpus: sb.vcpus,
    memory: sb.vcpus * MEMORY_PER_VCPU_MB,
    ...(sb.runtime ? { runtime: sb.runtime } : {}),
    ...(sb.image ? { image: sb.image } : {}),
    timeout: sb.timeout,
    networkPolicy: sb.networkPolicy,
    totalDurationMs: sb.finishedDurationMs + running,
    createdAt: sb.createdAt,
    updatedAt: sb.updatedAt,
    currentSessionId: sb.currentSessionId,
    ...(sb.currentSnapshotId ? { currentSnapshotId: sb.currentSnapshotId } : {}),
    status: current?.phase ?? "stopped",
    statusUpdatedAt: sb.statusUpdatedAt,
    cwd: current?.cwd,
    tags: sb.tags,
    ...(sb.snapshotExpiration !== undefined ? { snapshotExpiration: sb.snapshotExpiration } : {}),
    ...(sb.keepLastSnapshots ? { keepLastSnapshots: sb.keepLastSnapshots } : {}),
  };
}

export function routesJson(s: EmuSession) {
  return s.routes.map((r) => ({
    url: `https://${r.subdomain}.vercel.run`,
    subdomain: r.subdomain,
    port: r.port,
  }));
}

export function snapshotJson(snap: EmuSnapshot, status: "created" | "deleted" = "created") {
  return {
    id: snap.id,
    sourceSessionId: snap.sourceSessionId,
    region: snap.region,
    status,
    sizeBytes: snap.sizeBytes,
    createdAt: snap.createdAt,
    updatedAt: snap.createdAt,
    ...(snap.expiresAt !== undefined ? { expiresAt: snap.expiresAt } : {}),
  };
}

/** Opaque cursor pagination over an ordered list, as the API's `{ count, next }`. */
export function paginate<T>(items: T[], limit = 20, cursor?: string) {
  const start = cursor ? Number(cursor) : 0;
  if (!Number.isInteger(start) || start < 0) throw badRequest("invalid cursor");
  const page = items.slice(start, start + limit);
  const next = start + limit < items.length ? String(start + limit) : null;
  return { page, pagination: { count: page.length, next } };
}
