/**
 * One run of `fn` for any number of callers that ask while it runs. A caller that arrives
 * mid-run is owed a run that starts after it asked (what it came for may have arrived after
 * the current run looked), so the run repeats once more before everyone gets the result.
 * A burst of webhooks then costs one wake-and-deliver loop instead of one per message, each
 * polling the lock and the store (measured by `npm run bench -- load`, docs/lifecycle.md).
 */
export class Coalescer<T> {
  private running: Promise<T> | null = null;
  private rerun = false;

  run(fn: () => Promise<T>): Promise<T> {
    if (this.running) {
      this.rerun = true;
      return this.running;
    }
    const loop = async (): Promise<T> => {
      let result: T;
      do {
        this.rerun = false;
        result = await fn();
      } while (this.rerun);
      return result;
    };
    this.running = loop().finally(() => {
      this.running = null;
    });
    return this.running;
  }
}
