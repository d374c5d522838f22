import { SqliteStore } from "../../src/server/store/sqlite/store";

/**
 * Child process for the sqlite multi-process test: `node --import tsx sqlite-store-worker.ts
 * <file> <instance> <increments>`. Prints "ready", waits for a line on stdin so all workers
 * start together, does compare-and-set increments (retrying on conflict), races for one
 * lock and enqueues one shared dedupe id, then prints a JSON summary line.
 */
async function main(): Promise<void> {
  const [file, instance, countText] = process.argv.slice(2);
  if (!file || !instance || !countText) throw new Error("usage: <file> <instance> <increments>");
  const store = new SqliteStore(file, { instance });
  await store.ping(); // open and migrate before the start line
  process.stdout.write("ready\n");
  await new Promise((resolve) => process.stdin.once("data", resolve));
  process.stdin.pause();
  let conflicts = 0;
  for (let i = 0; i < Number(countText); i++) {
    for (;;) {
      const current = await store.state.get();
      if (!current) throw new Error("state must be initialised by the parent");
      const next = { ...current.value, since: current.value.since + 1 };
      if ((await store.state.compareAndSet(current.version, next)).ok) break;
      conflicts++;
    }
  }
  const lock = await store.locks.acquire("race", `pid-${process.pid}`, 60_000);
  const { duplicate } = await store.inbox.enqueue({
    id: "shared",
    channel: "test",
    conversation: "c",
    text: `from ${process.pid}`,
    receivedAt: 1,
    meta: {},
  });
  await store.close();
  process.stdout.write(`${JSON.stringify({ conflicts, lock: lock !== null, duplicate })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
