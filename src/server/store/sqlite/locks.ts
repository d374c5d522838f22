import type { LockGrant, LockStore } from "../types";
import type { SqliteContext } from "./inbox";

type LockRow = { owner: string | null; expires_at: number; fence: number };

/** Leases in the `locks` table; the row (and its fence counter) outlives release and expiry. */
export class SqliteLocks implements LockStore {
  constructor(private readonly ctx: SqliteContext) {}

  acquire(name: string, owner: string, leaseMs: number): Promise<LockGrant | null> {
    const { ctx } = this;
    return ctx.run(() =>
      ctx.tx(() => {
        const now = Date.now();
        const row = ctx
          .sql(`SELECT owner, expires_at, fence FROM locks WHERE instance = ? AND name = ?`)
          .get(ctx.instance, name) as LockRow | undefined;
        if (row?.owner != null && row.owner !== owner && row.expires_at > now) return null;
        // The fence only ever grows.
        const fence = (row?.fence ?? 0) + 1;
        const expiresAt = now + leaseMs;
        ctx
          .sql(
            `INSERT INTO locks (instance, name, owner, expires_at, fence) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (instance, name) DO UPDATE SET owner = excluded.owner,
               expires_at = excluded.expires_at, fence = excluded.fence`,
          )
          .run(ctx.instance, name, owner, expiresAt, fence);
        return { name, owner, fence, expiresAt };
      }),
    );
  }

  renew(name: string, owner: string, leaseMs: number): Promise<boolean> {
    const { ctx } = this;
    return ctx.run(() => {
      const now = Date.now();
      const result = ctx
        .sql(
          `UPDATE locks SET expires_at = ? WHERE instance = ? AND name = ? AND owner = ? AND expires_at > ?`,
        )
        .run(now + leaseMs, ctx.instance, name, owner, now);
      return result.changes === 1;
    });
  }

  release(name: string, owner: string): Promise<boolean> {
    const { ctx } = this;
    return ctx.run(() => {
      const result = ctx
        .sql(
          `UPDATE locks SET owner = NULL, expires_at = 0
           WHERE instance = ? AND name = ? AND owner = ? AND expires_at > ?`,
        )
        .run(ctx.instance, name, owner, Date.now());
      return result.changes === 1;
    });
  }
}
