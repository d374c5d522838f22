import { describe, expect, it } from "vitest";
import type { InstanceState } from "../../domain/instance-state";
import { instanceStateSchema } from "../../domain/instance-state";
import { type QuietFacts, quietTick } from "./quiet-tick";

const settings = { cronWakeLeadTimeMs: 60_000, fullTickEveryMs: 3_600_000 };
const now = 10_000_000;
const sleeping = (over: Partial<InstanceState> = {}): InstanceState =>
  instanceStateSchema.parse({
    status: "sleeping",
    since: now - 5_000,
    reason: "idle",
    sandboxId: null,
    sandboxCreatedAt: null,
    ttlDeadline: null,
    snapshotId: "snap-1",
    error: null,
    hooksRegistered: true,
    lastExtend: null,
    ...over,
  });
const facts = (over: Partial<QuietFacts> = {}): QuietFacts => ({
  state: sleeping(),
  version: 7,
  inboxPending: 0,
  outboxPending: 0,
  lastClean: { version: 7, at: now - 60_000 },
  now,
  ...over,
});

describe("quietTick", () => {
  it("ends a tick of an agent at rest whose state this server already found with nothing to do", () => {
    expect(quietTick(facts(), settings)).toEqual({ nextAt: null });
    expect(
      quietTick(facts({ state: null, version: 0, lastClean: { version: 0, at: now } }), settings),
    ).toEqual({ nextAt: null });
    expect(quietTick(facts({ state: sleeping({ status: "failed" }) }), settings)).toEqual({
      nextAt: null,
    });
  });

  it("needs a full tick on a server that has not done one, or when the state changed since", () => {
    expect(quietTick(facts({ lastClean: null }), settings)).toBeNull();
    expect(quietTick(facts({ version: 8 }), settings)).toBeNull();
  });

  it("needs a full tick for queued messages or replies", () => {
    expect(quietTick(facts({ inboxPending: 1 }), settings)).toBeNull();
    expect(quietTick(facts({ outboxPending: 1 }), settings)).toBeNull();
  });

  it("needs a full tick while a sandbox is meant to exist or a suspension is recorded", () => {
    for (const status of ["running", "creating", "starting", "snapshotting", "stopping"] as const)
      expect(quietTick(facts({ state: sleeping({ status }) }), settings), status).toBeNull();
    const suspension = { id: "s-1", at: now - 1_000 };
    expect(quietTick(facts({ state: sleeping({ suspension }) }), settings)).toBeNull();
  });

  it("comes back for a cron job's wake and ticks fully once its lead time has begun", () => {
    const cronDueAt = now + 10 * 60_000;
    expect(quietTick(facts({ state: sleeping({ cronDueAt }) }), settings)).toEqual({
      nextAt: cronDueAt - 60_000,
    });
    expect(quietTick(facts({ state: sleeping({ cronDueAt: now + 30_000 }) }), settings)).toBeNull();
  });

  it("lists the provider again after fullTickEveryMs even if nothing changed", () => {
    const lastClean = { version: 7, at: now - settings.fullTickEveryMs };
    expect(quietTick(facts({ lastClean }), settings)).toBeNull();
  });
});
