import { describe, expect, it } from "vitest";
import { ChangeSignal } from "./change-signal";

describe("ChangeSignal", () => {
  it("wakes every waiter on notify, and lets a waiter go after its time otherwise", async () => {
    const s = new ChangeSignal();
    let woken = 0;
    const a = s.wait(10_000).then(() => woken++);
    const b = s.wait(10_000).then(() => woken++);
    expect(s.waiting).toBe(2);
    s.notify();
    await Promise.all([a, b]);
    expect(woken).toBe(2);
    expect(s.waiting).toBe(0);
    const t0 = Date.now();
    await s.wait(30);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(25);
    expect(s.waiting).toBe(0);
  });
});
