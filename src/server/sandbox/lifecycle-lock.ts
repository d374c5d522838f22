import { randomUUID } from "node:crypto";
import { ClawrunError } from "../../protocol/clawrun-error";
import type { LockGrant, LockStore } from "../store/types";

/**
 * The instance's lifecycle lock (docs/lifecycle.md, "Statuses"). The lease expires by itself if the
 * holder dies; while the operation is still progressing a timer renews it, so a slow start
 * cannot let a second creator in. Renewal stops after `maxHoldMs` so a hung operation
 * cannot hold the instance forever.
 */
export const LIFECYCLE_LOCK = "lifecycle";

export class LockLostError extends ClawrunError {
  static override readonly errorName = "LockLostError";
  constructor() {
    super(
      "lock_lost",
      "lost the lifecycle lock (lease expired or taken over); stopping this operation",
      { status: 409 },
    );
  }
}

/** Another lifecycle operation holds the lock now (an operator action answers 409). */
export class LifecycleBusyError extends ClawrunError {
  static override readonly errorName = "LifecycleBusyError";
  constructor() {
    super("busy", "another lifecycle operation is in progress; try again when it settles", {
      status: 409,
    });
  }
}

export interface HeldLock {
  readonly grant: LockGrant;
  /** Renews now; throws LockLostError if another owner has it. Call before each mutating step. */
  confirm(): Promise<void>;
}

export interface LockSettings {
  leaseMs: number;
  maxHoldMs?: number;
}

/** Runs `fn` under the lock, or returns `{ acquired: false }` at once when it is held elsewhere. */
export async function withLifecycleLock<T>(
  locks: LockStore,
  settings: LockSettings,
  fn: (lock: HeldLock) => Promise<T>,
): Promise<{ acquired: true; value: T } | { acquired: false }> {
  const owner = randomUUID();
  const grant = await locks.acquire(LIFECYCLE_LOCK, owner, settings.leaseMs);
  if (!grant) return { acquired: false };

  let lost = false;
  const startedAt = Date.now();
  const maxHoldMs = settings.maxHoldMs ?? 10 * settings.leaseMs;
  const renew = async () => {
    if (lost) return;
    const ok = await locks.renew(LIFECYCLE_LOCK, owner, settings.leaseMs).catch(() => false);
    if (!ok) lost = true;
  };
  const timer = setInterval(
    () => {
      if (Date.now() - startedAt < maxHoldMs) void renew();
    },
    Math.max(50, Math.floor(settings.leaseMs / 3)),
  );
  timer.unref?.();

  const lock: HeldLock = {
    grant,
    async confirm() {
      if (!lost) await renew();
      if (lost) throw new LockLostError();
    },
  };
  try {
    return { acquired: true, value: await fn(lock) };
  } finally {
    clearInterval(timer);
    await locks.release(LIFECYCLE_LOCK, owner).catch(() => false);
  }
}
