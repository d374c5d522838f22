import { z } from "zod";
import type { LockGrant, LockStore } from "../types";
import { parseReply, type RedisContext, wholeMs } from "./context";
import { ACQUIRE_LOCK, RELEASE_LOCK, RENEW_LOCK } from "./scripts";

const flag = z.union([z.literal(0), z.literal(1)]);

/**
 * Leases with fencing numbers, each operation one Lua script. (@upstash/lock is not used: it
 * has no fencing and extends in whole seconds.)
 */
export class RedisLocks implements LockStore {
  private readonly scripts;

  constructor(private readonly ctx: RedisContext) {
    const s = (src: string) => ctx.redis.createScript(src);
    this.scripts = { acquire: s(ACQUIRE_LOCK), renew: s(RENEW_LOCK), release: s(RELEASE_LOCK) };
  }

  async acquire(name: string, owner: string, leaseMs: number): Promise<LockGrant | null> {
    const { keys } = this.ctx;
    const lease = wholeMs(leaseMs);
    const now = Date.now(); // before the call: the reported expiry errs on the early side
    const key = keys.lock(name);
    const raw = await this.ctx.call(key, () =>
      this.scripts.acquire.exec([key, keys.fence(name)], [owner, String(lease)]),
    );
    const fence = parseReply(z.number().nullable(), raw, "locks.acquire");
    return fence === null ? null : { name, owner, fence, expiresAt: now + lease };
  }

  async renew(name: string, owner: string, leaseMs: number): Promise<boolean> {
    const key = this.ctx.keys.lock(name);
    const raw = await this.ctx.call(key, () =>
      this.scripts.renew.exec([key], [owner, String(wholeMs(leaseMs))]),
    );
    return parseReply(flag, raw, "locks.renew") === 1;
  }

  async release(name: string, owner: string): Promise<boolean> {
    const key = this.ctx.keys.lock(name);
    const raw = await this.ctx.call(key, () => this.scripts.release.exec([key], [owner]));
    return parseReply(flag, raw, "locks.release") === 1;
  }
}
