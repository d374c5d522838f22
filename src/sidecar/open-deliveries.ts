/**
 * Deliveries through the door that have not been answered yet (issue 22, item 4): while one is
 * open the agent is answering a message, which is activity however long the turn takes. The
 * heartbeat reports the oldest one's start (`openDeliverySince`); the server decides.
 */
export class OpenDeliveries {
  private readonly open = new Map<number, number>();
  private next = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Records a delivery's start; the returned function ends it (idempotent). */
  begin(): () => void {
    const id = this.next++;
    this.open.set(id, this.now());
    return () => {
      this.open.delete(id);
    };
  }

  /** Epoch ms at which the oldest open delivery started; null when none is open. */
  oldestSince(): number | null {
    let oldest: number | null = null;
    for (const at of this.open.values()) if (oldest === null || at < oldest) oldest = at;
    return oldest;
  }
}
