import type { UsageSettlement, UsageStore } from "../store/types";

/**
 * Settlements this server could not record (the store was down when a call finished). Kept
 * in memory and in order; while any is left, the gateway refuses new calls on this server,
 * so spend it cannot count cannot grow. Each new call first tries to record them.
 */
export class SettlementBacklog {
  private readonly pending: UsageSettlement[] = [];
  private flushing: Promise<boolean> | null = null;

  get size(): number {
    return this.pending.length;
  }

  add(s: UsageSettlement): void {
    this.pending.push(s);
  }

  /**
   * Records what is pending, oldest first; true once nothing is left. One flush at a time:
   * racing calls wait for the same attempt instead of recording a settlement twice.
   */
  flush(usage: Pick<UsageStore, "settle">): Promise<boolean> {
    if (this.pending.length === 0) return Promise.resolve(true);
    this.flushing ??= (async () => {
      try {
        while (this.pending.length > 0) {
          await usage.settle(this.pending[0] as UsageSettlement);
          this.pending.shift();
        }
        return true;
      } catch {
        return false;
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
  }
}
