import type { UsageSettlement, UsageStore } from "../store/types";
import type { CapPeriod } from "./caps";

/** Raises the 80 % warnings a settlement turned out to be the first to reach. */
export type OnWarned = (warned: CapPeriod[]) => Promise<void>;

interface Pending {
  settlement: UsageSettlement;
  onWarned: OnWarned | null;
}

/**
 * Settlements this server could not record (the store was down when a call finished). Kept
 * in memory and in order; while any is left, the gateway refuses new calls on this server,
 * so spend it cannot count cannot grow. Each new call first tries to record them.
 */
export class SettlementBacklog {
  private readonly pending: Pending[] = [];
  private flushing: Promise<boolean> | null = null;

  get size(): number {
    return this.pending.length;
  }

  /** `onWarned`: what the call would have done with its warnings had the store taken it then. */
  add(settlement: UsageSettlement, onWarned: OnWarned | null = null): void {
    this.pending.push({ settlement, onWarned });
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
          const { settlement, onWarned } = this.pending[0] as Pending;
          const { warned } = await usage.settle(settlement);
          this.pending.shift();
          // A late settlement can be the one that reaches 80 %: warn as the call would have.
          if (warned.length > 0) await onWarned?.(warned).catch(() => {});
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
