/**
 * Wakes whoever waits for "something changed", or lets them go after a time: the door holds a
 * health request on it while the daemon starts (docs/sidecar.md, "The door"), so ClawRun hears
 * "running" the moment the supervisor sees it instead of at its next poll.
 */
export class ChangeSignal {
  private waiters = new Set<() => void>();

  /** Resolves at the next notify(), or after `ms`, whichever comes first. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  notify(): void {
    for (const wake of [...this.waiters]) wake();
  }

  get waiting(): number {
    return this.waiters.size;
  }
}
