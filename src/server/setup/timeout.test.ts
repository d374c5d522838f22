import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { checkFailure } from "./check-outcome";
import { CHECK_TIMEOUT_MS, timedCheck, withTimeout } from "./timeout";

/** What `fn` does with the time it is given. */
type Behaviour = (signal: AbortSignal) => Promise<string>;

const answersAfter =
  (ms: number, value: string): Behaviour =>
  () =>
    new Promise((resolve) => setTimeout(() => resolve(value), ms));
const failsAfter =
  (ms: number, message: string): Behaviour =>
  () =>
    new Promise((_, reject) => setTimeout(() => reject(new Error(message)), ms));
/** Never settles and never looks at its signal (a store ping takes none). */
const ignoresSignal: Behaviour = () => new Promise(() => {});
/** Like fetch: fails with the signal's reason when aborted. */
const honoursSignal: Behaviour = (signal) =>
  new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
const throwsAtOnce: Behaviour = () => {
  throw new Error("no such thing");
};

describe("withTimeout", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const cases: {
    name: string;
    fn: Behaviour;
    message?: string;
    /** How long to let the clock run: until the outcome is known (and `fn`'s own timers fired). */
    run: number;
    want: { value: string } | { error: string; name: string };
  }[] = [
    { name: "answers in time", fn: answersAfter(10, "pong"), run: 10, want: { value: "pong" } },
    {
      name: "fails in time with its own error",
      fn: failsAfter(10, "refused"),
      run: 10,
      want: { error: "refused", name: "Error" },
    },
    {
      name: "throws before it returns a promise",
      fn: throwsAtOnce,
      run: 0,
      want: { error: "no such thing", name: "Error" },
    },
    {
      name: "ignores its signal: given up at the limit, in the platform's words",
      fn: ignoresSignal,
      run: 100,
      want: { error: "The operation was aborted due to timeout", name: "TimeoutError" },
    },
    {
      name: "honours its signal: the timeout, in the caller's words",
      fn: honoursSignal,
      message: "timed out after 3 s",
      run: 100,
      want: { error: "timed out after 3 s", name: "TimeoutError" },
    },
    {
      name: "answers after the limit: too late",
      fn: answersAfter(150, "late"),
      run: 150,
      want: { error: "The operation was aborted due to timeout", name: "TimeoutError" },
    },
  ];

  for (const c of cases) {
    it(`${c.name}, and leaves no timer behind`, async () => {
      const outcome = withTimeout(c.fn, 100, c.message).then(
        (value) => ({ value }),
        (err: Error) => ({ error: err.message, name: err.name }),
      );
      await vi.advanceTimersByTimeAsync(c.run);
      expect(await outcome).toEqual(c.want);
      expect(vi.getTimerCount()).toBe(0);
    });
  }

  it("aborts the signal it gave with the timeout as the reason", async () => {
    let given: AbortSignal | undefined;
    const outcome = withTimeout((signal) => {
      given = signal;
      return ignoresSignal(signal);
    }, 100).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(99);
    expect(given?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(given?.aborted).toBe(true);
    expect(given?.reason).toBe(await outcome);
  });
});

describe("timedCheck: each caller keeps its words", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const healthWords = (err: unknown) => ({ ok: false, detail: (err as Error).message });
  const cases = [
    {
      name: "health, a store that never answers",
      fn: ignoresSignal,
      failed: healthWords,
      message: "timed out after 3 s",
      want: { ok: false, detail: "timed out after 3 s" },
    },
    {
      name: "health, a provider check that gives up on its signal",
      fn: honoursSignal,
      failed: healthWords,
      message: "timed out after 3 s",
      want: { ok: false, detail: "timed out after 3 s" },
    },
    {
      name: "health, a failure in time",
      fn: failsAfter(5, "connection refused"),
      failed: healthWords,
      message: "timed out after 3 s",
      run: 5,
      want: { ok: false, detail: "connection refused" },
    },
    {
      name: "set-up checklist, a URL that never answers: unknown, not missing",
      fn: honoursSignal,
      failed: checkFailure,
      want: {
        ok: false,
        unknown: true,
        detail: "no answer in time (unknown, not missing; checked again shortly)",
      },
    },
    {
      name: "set-up checklist, a store ping that ignores its signal: unknown too",
      fn: ignoresSignal,
      failed: checkFailure,
      want: {
        ok: false,
        unknown: true,
        detail: "no answer in time (unknown, not missing; checked again shortly)",
      },
    },
    {
      name: "set-up checklist, a failure in time",
      fn: failsAfter(5, "HTTP 404 from x"),
      failed: checkFailure,
      run: 5,
      want: { ok: false, detail: "HTTP 404 from x" },
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const result = timedCheck(c.fn, c.failed, c.message);
      await vi.advanceTimersByTimeAsync(c.run ?? CHECK_TIMEOUT_MS);
      expect(await result).toEqual(c.want);
      expect(vi.getTimerCount()).toBe(0);
    });
  }

  it("says how long a passing check took", async () => {
    const result = timedCheck(answersAfter(40, "pong"), checkFailure);
    await vi.advanceTimersByTimeAsync(40);
    expect(await result).toEqual({ ok: true, detail: "ok in 40 ms" });
    expect(vi.getTimerCount()).toBe(0);
  });
});
