import { randomBytes } from "node:crypto";
import pino from "pino";
import { SANDBOX_PORTS } from "../../../src/protocol/constants";
import { LocalProvider } from "../../../src/server/providers/local/local-provider";
import type { LocalSandbox } from "../../../src/server/providers/local/local-sandbox";
import { SnapshotNotFoundError } from "../../../src/server/providers/types";
import { badRequest, EmulatedError, notFound } from "./http";
import {
  type ApiPolicy,
  DEFAULT_SNAPSHOT_EXPIRATION_MS,
  type EmuSandbox,
  type EmuSession,
  type EmuSnapshot,
} from "./model";
import type { CreateSandboxBody } from "./request-schemas";

/**
 * The emulated service: sandboxes, sessions and snapshots with Vercel's semantics
 * (docs/vercel-sandbox.md), each session a real local-provider sandbox. The service owns a
 * session's deadline: when it passes, the session is stopped as Vercel stops it (a persistent
 * one saved first). The local sandbox's own TTL sits a little later, as a backstop should
 * the emulator's process die.
 */

const BACKSTOP_MS = 30_000;
const DEFAULT_TIMEOUT_MS = 5 * 60_000;

export interface ServiceOptions {
  stateDir: string;
  projectId: string;
  /** The plan's cap on a session's total timeout (Hobby: 45 minutes). */
  maxTimeoutMs: number;
}

export const stopped = (what: string) =>
  new EmulatedError(410, "sandbox_stopped", `${what} is stopped`);
const snapshotGone = (id: string) =>
  new EmulatedError(410, "snapshot_not_found", `snapshot ${id} no longer exists`);

export class EmulatedService {
  readonly local: LocalProvider;
  readonly sandboxes = new Map<string, EmuSandbox>();
  readonly sessions = new Map<string, EmuSession>();
  readonly snapshots = new Map<string, EmuSnapshot>();

  constructor(readonly opts: ServiceOptions) {
    this.local = new LocalProvider({
      stateDir: opts.stateDir,
      logger: pino({ level: "silent" }),
      killGraceMs: 300,
      watchdogPollMs: 100,
    });
  }

  // ---- sandboxes

  sandbox(name: string): EmuSandbox {
    const sb = this.sandboxes.get(name);
    if (!sb) throw notFound(`sandbox ${name}`);
    return sb;
  }

  async createSandbox(body: CreateSandboxBody, policy: ApiPolicy) {
    if (body.projectId !== this.opts.projectId) throw notFound(`project ${body.projectId}`);
    if (body.source && body.source.type !== "snapshot") {
      throw badRequest(`emulator: a ${body.source.type} source is not emulated`);
    }
    const name = body.name ?? `sbx-${randomBytes(8).toString("hex")}`;
    if (this.sandboxes.has(name)) {
      throw new EmulatedError(409, "conflict", `a sandbox named ${name} already exists`);
    }
    if (Object.keys(body.tags ?? {}).length > 5) throw badRequest("at most 5 tags");
    const timeout = body.timeout ?? DEFAULT_TIMEOUT_MS;
    this.checkTimeout(timeout);
    const sourceSnapshotId = body.source?.snapshotId;
    if (sourceSnapshotId !== undefined && !this.liveSnapshot(sourceSnapshotId)) {
      throw new EmulatedError(404, "snapshot_not_found", `snapshot ${sourceSnapshotId} not found`);
    }
    const now = Date.now();
    const sb: EmuSandbox = {
      name,
      projectId: body.projectId,
      persistent: body.persistent ?? true, // persistence is Vercel's default
      region: body.region ?? "iad1",
      vcpus: body.resources?.vcpus ?? 2,
      runtime: body.runtime,
      image: body.image,
      timeout,
      ports: body.ports ?? [],
      env: body.env ?? {},
      networkPolicy: policy,
      tags: body.tags ?? {},
      createdAt: now,
      updatedAt: now,
      statusUpdatedAt: now,
      currentSessionId: "",
      sourceSnapshotId,
      snapshotExpiration: body.snapshotExpiration,
      keepLastSnapshots: body.keepLastSnapshots,
      finishedDurationMs: 0,
    };
    const session = await this.startSession(sb, sourceSnapshotId);
    this.sandboxes.set(name, sb);
    return { sandbox: sb, session };
  }

  /** Vercel's get: a stopped sandbox starts a new session only when asked to resume. */
  async getSandbox(name: string, resume: boolean) {
    const sb = this.sandbox(name);
    let session = await this.settled(this.current(sb));
    if (!resume || session.phase === "running") return { sandbox: sb, session, resumed: false };
    // A persistent sandbox resumes from its saved state; without it Vercel refuses (410).
    const source = sb.persistent
      ? (sb.currentSnapshotId ?? sb.sourceSnapshotId)
      : sb.sourceSnapshotId;
    const live = source !== undefined && this.liveSnapshot(source) !== undefined;
    if (source !== undefined && !live && sb.persistent) throw snapshotGone(source);
    session = await this.startSession(sb, live ? source : undefined);
    return { sandbox: sb, session, resumed: true };
  }

  async deleteSandbox(name: string, deleteOrphanSnapshots: boolean) {
    const sb = this.sandbox(name);
    const session = await this.settled(this.current(sb));
    if (session.phase === "running") await this.halt(sb, session, false);
    this.sandboxes.delete(name);
    for (const [id, s] of this.sessions) if (s.sandboxName === name) this.sessions.delete(id);
    if (deleteOrphanSnapshots) {
      for (const snap of [...this.snapshots.values()]) {
        if (snap.sandboxName === name) await this.dropSnapshot(snap.id);
      }
    }
    return { sandbox: sb, session };
  }

  // ---- sessions

  /** The session with its phase brought up to date with the backing sandbox. */
  session(id: string): EmuSession {
    const s = this.sessions.get(id);
    if (!s) throw notFound(`session ${id}`);
    return this.refresh(s);
  }

  current(sb: EmuSandbox): EmuSession {
    return this.session(sb.currentSessionId);
  }

  sandboxOf(s: EmuSession): EmuSandbox {
    return this.sandbox(s.sandboxName);
  }

  /** The running backing sandbox of a session, or the API's "stopped" answer. */
  async running(id: string): Promise<{ session: EmuSession; local: LocalSandbox }> {
    const session = this.session(id);
    if (session.phase === "stopping") {
      throw new EmulatedError(422, "sandbox_stopping", `session ${id} is stopping`);
    }
    if (session.phase === "snapshotting") {
      throw new EmulatedError(422, "sandbox_snapshotting", `session ${id} is being snapshotted`);
    }
    if (session.phase !== "running") throw stopped(`session ${id}`);
    return { session, local: this.backing(id) };
  }

  private refresh(s: EmuSession): EmuSession {
    if (s.phase !== "running") return s;
    const local = this.backing(s.id).status;
    if (local === "stopped" || local === "failed") {
      s.phase = local;
      s.stoppedAt = Math.min(Date.now(), s.startedAt + s.timeout + BACKSTOP_MS);
      this.finish(s);
    }
    return s;
  }

  /** The backing local sandbox (its getters re-read its directory, so one object serves). */
  backing(id: string): LocalSandbox {
    const local = this.backings.get(id);
    if (!local) throw notFound(`session ${id}`);
    return local;
  }

  private readonly backings = new Map<string, LocalSandbox>();

  private async startSession(sb: EmuSandbox, sourceSnapshotId: string | undefined) {
    let local: LocalSandbox;
    try {
      local = await this.local.create({
        snapshotId: sourceSnapshotId,
        timeoutMs: sb.timeout + BACKSTOP_MS,
        ports: sb.ports,
        // A microVM has its own loopback; these sandboxes share the host's, so the daemon's
        // port (not exposed, not routed) still needs a free host port of its own.
        internalPorts: sb.ports.includes(SANDBOX_PORTS.daemon) ? [] : [SANDBOX_PORTS.daemon],
        labels: { sandbox: sb.name },
      });
    } catch (err) {
      if (err instanceof SnapshotNotFoundError) throw snapshotGone(sourceSnapshotId ?? "?");
      throw err;
    }
    this.backings.set(local.id, local);
    const now = Date.now();
    const session: EmuSession = {
      id: local.id,
      sandboxName: sb.name,
      requestedAt: now,
      startedAt: local.createdAt,
      timeout: sb.timeout,
      phase: "running",
      networkPolicy: sb.networkPolicy,
      routes: sb.ports.map((port) => ({
        port,
        subdomain: `${local.id.replace(/_/g, "-").toLowerCase()}-${port}`,
      })),
      cwd: local.root,
      ...(sourceSnapshotId ? { sourceSnapshotId } : {}),
    };
    this.sessions.set(session.id, session);
    this.schedule(session);
    sb.currentSessionId = session.id;
    sb.statusUpdatedAt = now;
    return session;
  }

  private schedule(s: EmuSession): void {
    if (s.timer) clearTimeout(s.timer);
    const delay = Math.max(0, s.startedAt + s.timeout - Date.now());
    s.timer = setTimeout(() => {
      this.stopSession(s.id).catch(() => undefined);
    }, delay);
  }

  private checkTimeout(totalMs: number): void {
    if (totalMs > this.opts.maxTimeoutMs) {
      throw badRequest(
        `timeout ${totalMs} ms exceeds the plan's maximum of ${this.opts.maxTimeoutMs} ms`,
      );
    }
  }

  async extend(id: string, durationMs: number): Promise<EmuSession> {
    const { session, local } = await this.running(id);
    this.checkTimeout(session.timeout + durationMs);
    await local.extendTimeout(durationMs);
    session.timeout += durationMs;
    this.schedule(session);
    return session;
  }

  setPolicy(id: string, policy: ApiPolicy): EmuSession {
    const session = this.session(id);
    if (session.phase !== "running") throw stopped(`session ${id}`);
    session.networkPolicy = policy;
    return session;
  }

  /** Waits for a stop or snapshot under way, then answers with the settled session. */
  private async settled(s: EmuSession): Promise<EmuSession> {
    while (s.busy) await s.busy.catch(() => undefined);
    return this.refresh(s);
  }

  /** Stop (API call or deadline): a persistent sandbox saves its files first. */
  async stopSession(id: string): Promise<{ session: EmuSession; snapshot?: EmuSnapshot }> {
    const session = await this.settled(this.session(id));
    if (session.phase !== "running") return { session };
    const sb = this.sandboxOf(session);
    const snapshot = await this.halt(sb, session, sb.persistent);
    return { session, snapshot };
  }

  /** Vercel's snapshot(): captures the files, then the session shuts down. */
  async snapshotSession(id: string, expiration: number | undefined) {
    await this.running(id);
    const session = this.session(id);
    const sb = this.sandboxOf(session);
    session.snapshottedAt = Date.now();
    const snapshot = await this.halt(sb, session, true, "snapshotting", expiration);
    return { session, snapshot: snapshot as EmuSnapshot };
  }

  private async halt(
    sb: EmuSandbox,
    session: EmuSession,
    save: boolean,
    phase: "stopping" | "snapshotting" = "stopping",
    expiration?: number,
  ): Promise<EmuSnapshot | undefined> {
    session.phase = phase;
    session.requestedStopAt = Date.now();
    const work = (async () => {
      const local = this.backing(session.id);
      try {
        return save ? await this.capture(sb, session, local, expiration) : undefined;
      } finally {
        await local.stop();
        session.phase = "stopped";
        session.stoppedAt = Date.now();
        this.finish(session);
      }
    })();
    session.busy = work;
    try {
      return await work;
    } finally {
      session.busy = undefined;
    }
  }

  private finish(s: EmuSession): void {
    if (s.timer) clearTimeout(s.timer);
    s.timer = undefined;
    const sb = this.sandboxes.get(s.sandboxName);
    if (!sb) return;
    sb.finishedDurationMs += (s.stoppedAt ?? Date.now()) - s.startedAt;
    sb.statusUpdatedAt = Date.now();
  }

  // ---- snapshots

  private async capture(
    sb: EmuSandbox,
    session: EmuSession,
    local: LocalSandbox,
    expiration: number | undefined,
  ): Promise<EmuSnapshot> {
    const { id } = await local.snapshot();
    const info = (await this.local.listSnapshots()).find((s) => s.id === id);
    const ttl = expiration ?? sb.keepLastSnapshots?.expiration ?? sb.snapshotExpiration;
    const expiresIn = ttl ?? DEFAULT_SNAPSHOT_EXPIRATION_MS;
    const snap: EmuSnapshot = {
      id,
      projectId: sb.projectId,
      sandboxName: sb.name,
      sourceSessionId: session.id,
      region: sb.region,
      sizeBytes: info?.sizeBytes ?? 0,
      createdAt: info?.createdAt ?? Date.now(),
      ...(expiresIn > 0 ? { expiresAt: (info?.createdAt ?? Date.now()) + expiresIn } : {}),
    };
    this.snapshots.set(id, snap);
    if (sb.persistent) sb.currentSnapshotId = id;
    await this.applyKeepLast(sb);
    return snap;
  }

  /** keepLastSnapshots: the newest `count` stay; evicted ones are deleted unless told not to. */
  private async applyKeepLast(sb: EmuSandbox): Promise<void> {
    const keep = sb.keepLastSnapshots;
    if (!keep || keep.deleteEvicted === false) return;
    const evicted = this.snapshotsOf(sb.name).slice(keep.count);
    for (const snap of evicted) await this.dropSnapshot(snap.id);
  }

  /** A snapshot that exists and has not expired (an expired one is deleted on sight). */
  liveSnapshot(id: string): EmuSnapshot | undefined {
    const snap = this.snapshots.get(id);
    if (snap?.expiresAt !== undefined && snap.expiresAt <= Date.now()) {
      this.dropSnapshot(id).catch(() => undefined);
      return undefined;
    }
    return snap;
  }

  snapshotsOf(sandboxName?: string): EmuSnapshot[] {
    return [...this.snapshots.values()]
      .filter((s) => this.liveSnapshot(s.id) && (!sandboxName || s.sandboxName === sandboxName))
      .sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id));
  }

  async dropSnapshot(id: string): Promise<EmuSnapshot> {
    const snap = this.snapshots.get(id);
    if (!snap) throw notFound(`snapshot ${id}`);
    this.snapshots.delete(id);
    await this.local.deleteSnapshot(id).catch(() => undefined);
    return snap;
  }

  async close(): Promise<void> {
    for (const s of this.sessions.values()) if (s.timer) clearTimeout(s.timer);
    const running = [...this.sessions.values()].filter((s) => s.phase !== "stopped");
    await Promise.allSettled(running.map((s) => this.backing(s.id).stop()));
  }
}
