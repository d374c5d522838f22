import { describe, expect, it } from "vitest";
import { vercelCapabilities } from "./capabilities";
import { cappedTimeout, planExtension } from "./lifetime";

const MIN = 60_000;

describe("TTL arithmetic against the plan's cap", () => {
  it.each([
    // wanted, cap, asked for
    [50 * MIN, 45 * MIN, 45 * MIN], // the lifecycle's 300 s × 10 on Hobby
    [10 * MIN, 45 * MIN, 10 * MIN],
    [45 * MIN, 45 * MIN, 45 * MIN],
    [10 * MIN, null, 10 * MIN],
  ])("create with %i ms under a cap of %s asks for %i ms", (wanted, cap, asked) => {
    expect(cappedTimeout(wanted, cap)).toBe(asked);
  });

  it("refuses a timeout that is not a positive whole number of ms", () => {
    expect(() => cappedTimeout(0, 45 * MIN)).toThrow("timeoutMs must be a positive integer, got 0");
    expect(() => cappedTimeout(1.5, null)).toThrow(/positive integer/);
  });

  it.each([
    // current total, extend by, cap, outcome
    [10 * MIN, 3 * MIN, 45 * MIN, { ok: true, totalMs: 13 * MIN }],
    [42 * MIN, 3 * MIN, 45 * MIN, { ok: true, totalMs: 45 * MIN }],
    [43 * MIN, 3 * MIN, 45 * MIN, { ok: false }],
    [45 * MIN, 1, 45 * MIN, { ok: false }],
    [10 * MIN, 3 * MIN, null, { ok: true, totalMs: 13 * MIN }],
    [10 * MIN, 0.4, null, { ok: true, totalMs: 10 * MIN + 1 }],
    [10 * MIN, 0, 45 * MIN, { ok: false }],
    [10 * MIN, -5, 45 * MIN, { ok: false }],
  ])("extending %i ms by %i ms under %s: %j", (current, by, cap, outcome) => {
    expect(planExtension(current, by, cap)).toMatchObject(outcome);
  });

  it("says why an extension past the cap is refused", () => {
    const plan = planExtension(43 * MIN, 3 * MIN, 45 * MIN);
    expect(plan).toEqual({
      ok: false,
      reason:
        "extending by 180000 ms would make the session 2760000 ms long, past the plan's cap of 2700000 ms (sandbox.vercel.maxTimeoutMinutes)",
    });
  });
});

describe("capabilities", () => {
  it("snapshot mode: any snapshot restores, ClawRun keeps retention, snapshot() stops", () => {
    expect(vercelCapabilities({ mode: "snapshot", maxTimeoutMinutes: 45 })).toEqual({
      restoreAnySnapshot: true,
      resumable: false,
      snapshotStops: true,
      ownsRetention: false,
      enforcesNetworkPolicy: true,
      maxLifetimeMs: 45 * MIN,
      sharedLayers: false,
      // An agent layer becomes a template snapshot; states up to 8 MiB go to the store.
      layerTemplates: { maxStateArchiveBytes: 8 * 1024 * 1024 },
    });
    expect(
      vercelCapabilities({ mode: "snapshot", maxTimeoutMinutes: 45, maxStateArchiveMiB: 2 })
        .layerTemplates,
    ).toEqual({ maxStateArchiveBytes: 2 * 1024 * 1024 });
  });

  it("persistent mode: resumes by name, Vercel keeps the last snapshots", () => {
    expect(vercelCapabilities({ mode: "persistent", maxTimeoutMinutes: 300 })).toEqual({
      restoreAnySnapshot: false,
      resumable: true,
      snapshotStops: true,
      ownsRetention: true,
      enforcesNetworkPolicy: true,
      maxLifetimeMs: 300 * MIN,
      sharedLayers: false,
      layerTemplates: null,
    });
  });
});
