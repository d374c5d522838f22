import { describe, expect, it } from "vitest";
import { parseSidecarHealth } from "./health";
import { parseHeartbeatBody, parseHeartbeatResponse } from "./heartbeat";
import { parseSidecarConfig, SIDECAR_TIMINGS } from "./sidecar-config";

const HEARTBEAT = {
  sandboxId: "sbx_1",
  lastChangedAt: 10,
  sandboxCreatedAt: 5,
  root: "/r",
  daemonStatus: "running",
  daemonRestarts: 0,
};

describe("heartbeat body (hand-checked, strict)", () => {
  it("accepts exactly the documented fields", () => {
    expect(parseHeartbeatBody(HEARTBEAT)).toEqual({ ok: true, value: HEARTBEAT });
  });

  it.each([0, 3, null])(
    "accepts the restored generation %j (restore attestation; null: damaged marker)",
    (generation) => {
      expect(parseHeartbeatBody({ ...HEARTBEAT, generation })).toEqual({
        ok: true,
        value: { ...HEARTBEAT, generation },
      });
    },
  );

  it("accepts daemonReturned (issue 22, item 10), optional for older sidecars", () => {
    expect(parseHeartbeatBody({ ...HEARTBEAT, daemonReturned: true })).toEqual({
      ok: true,
      value: { ...HEARTBEAT, daemonReturned: true },
    });
    expect(parseHeartbeatBody({ ...HEARTBEAT, daemonReturned: "yes" })).toEqual({
      ok: false,
      error: "daemonReturned: expected boolean, got string",
    });
  });

  it("accepts openDeliverySince (issue 22, item 4), optional for older sidecars", () => {
    expect(parseHeartbeatBody({ ...HEARTBEAT, openDeliverySince: 7 })).toEqual({
      ok: true,
      value: { ...HEARTBEAT, openDeliverySince: 7 },
    });
    const bad = parseHeartbeatBody({ ...HEARTBEAT, openDeliverySince: -1 });
    expect(bad.ok === false && bad.error).toMatch(/openDeliverySince: expected number/);
  });

  it.each([
    ["not an object", [], /\(root\): expected object, got array/],
    ["a missing field", { ...HEARTBEAT, root: undefined }, /root: expected string, got undefined/],
    ["an empty id", { ...HEARTBEAT, sandboxId: "" }, /sandboxId: expected a non-empty string/],
    ["a long id", { ...HEARTBEAT, sandboxId: "x".repeat(201) }, /sandboxId: expected at most 200/],
    [
      "a string count",
      { ...HEARTBEAT, daemonRestarts: "many" },
      /daemonRestarts: expected number .*got string/,
    ],
    [
      "a fraction",
      { ...HEARTBEAT, lastChangedAt: 1.5 },
      /lastChangedAt: expected number \(an integer ≥ 0\), got 1.5/,
    ],
    ["a negative time", { ...HEARTBEAT, sandboxCreatedAt: -1 }, /sandboxCreatedAt: .*got -1/],
    [
      "an unknown status",
      { ...HEARTBEAT, daemonStatus: "dancing" },
      /daemonStatus: expected one of "starting", "running", "stopped", "failed", got "dancing"/,
    ],
    ["an extra field", { ...HEARTBEAT, extra: 1 }, /unknown key "extra"/],
    [
      "a negative generation",
      { ...HEARTBEAT, generation: -1 },
      /generation: expected number \(an integer ≥ 0\), got -1/,
    ],
    [
      "a string generation",
      { ...HEARTBEAT, generation: "g1" },
      /generation: expected number .*got string/,
    ],
  ])("refuses %s, naming the field", (_name, body, message) => {
    const parsed = parseHeartbeatBody(body);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok === false && parsed.error).toMatch(message);
  });

  it("reads the server's answer, refusing an unknown action", () => {
    expect(parseHeartbeatResponse({ action: "stop", reason: "idle", more: 1 })).toEqual({
      ok: true,
      value: { action: "stop", reason: "idle" },
    });
    expect(parseHeartbeatResponse({ action: "explode", reason: "" }).ok).toBe(false);
  });
});

describe("sidecar health", () => {
  const HEALTH = {
    ok: true,
    daemon: { status: "running", pid: null, restarts: 2 },
    heartbeat: { lastTick: 5, lastSuccess: null },
    uptime: 3.5,
  };

  it("accepts nulls where documented and drops unknown keys (a newer sidecar may add some)", () => {
    expect(parseSidecarHealth({ ...HEALTH, newerField: "g1" })).toEqual({
      ok: true,
      value: HEALTH,
    });
  });

  it("keeps the restored generation, null for a damaged marker (restore attestation)", () => {
    for (const generation of [0, 2, null]) {
      expect(parseSidecarHealth({ ...HEALTH, generation })).toEqual({
        ok: true,
        value: { ...HEALTH, generation },
      });
    }
  });

  it.each([
    [{ ...HEALTH, ok: "yes" }, /ok: expected boolean, got string/],
    [{ ...HEALTH, daemon: null }, /daemon: expected object, got null/],
    [{ ...HEALTH, daemon: { ...HEALTH.daemon, pid: 1.5 } }, /daemon\.pid: expected number/],
    [
      { ...HEALTH, heartbeat: { lastTick: null, lastSuccess: 1 } },
      /heartbeat\.lastSuccess: expected boolean/,
    ],
    [{ ...HEALTH, uptime: -1 }, /uptime: expected number ≥ 0, got -1/],
    [{ ...HEALTH, generation: 1.5 }, /generation: expected number \(an integer ≥ 0\), got 1.5/],
    [{ ...HEALTH, generation: "g1" }, /generation: expected number .*got string/],
  ])("refuses %j", (body, message) => {
    const parsed = parseSidecarHealth(body);
    expect(parsed.ok === false && parsed.error).toMatch(message);
  });
});

describe("sidecar config", () => {
  const MINIMAL = {
    sandboxId: "sbx_1",
    root: "/r",
    sandboxCreatedAt: 1,
    parentUrl: "https://clawrun.example/base",
    daemon: { command: "node" },
  };

  it("fills the documented defaults", () => {
    const parsed = parseSidecarConfig(MINIMAL);
    expect(parsed).toEqual({
      ok: true,
      value: {
        ...MINIMAL,
        daemon: { command: "node", args: [], env: {}, port: 3000 },
        healthPort: 3001,
        tools: [],
        activityIgnore: [],
        timings: {},
      },
    });
  });

  it("keeps every given field", () => {
    const full = {
      ...MINIMAL,
      daemon: { command: "sh", args: ["a", ""], env: { A: "1" }, port: 8080, cwd: "app" },
      healthPort: 4001,
      tools: [{ name: "t", check: "true", install: ["make"] }],
      activityIgnore: [".cache"],
      timings: { heartbeatIntervalMs: 1000, logMaxBytes: SIDECAR_TIMINGS.logMaxBytes },
    };
    expect(parseSidecarConfig(full)).toEqual({ ok: true, value: full });
  });

  it.each([
    [{ ...MINIMAL, parentUrl: "ftp://x" }, /parentUrl: expected an http\(s\) URL/],
    [{ ...MINIMAL, daemon: { command: "" } }, /daemon\.command: expected a non-empty string/],
    [
      { ...MINIMAL, daemon: { command: "x", port: 70000 } },
      /daemon\.port: expected number \(an integer in 1-65535\)/,
    ],
    [{ ...MINIMAL, daemon: { command: "x", env: { A: 1 } } }, /daemon\.env\.A: expected string/],
    [{ ...MINIMAL, daemon: { command: "x", shell: true } }, /daemon: unknown key "shell"/],
    [
      { ...MINIMAL, tools: [{ name: "t", check: "c", install: [] }] },
      /tools\[0\]\.install: expected at least 1/,
    ],
    [
      { ...MINIMAL, tools: [{ name: "t", check: "c", install: [""] }] },
      /tools\[0\]\.install\[0\]: expected a non-empty string/,
    ],
    [{ ...MINIMAL, timings: { nope: 1 } }, /timings: unknown key "nope"/],
    [{ ...MINIMAL, timings: { maxRestarts: 0 } }, /timings\.maxRestarts: expected number/],
  ])("refuses %j, naming the field", (body, message) => {
    const parsed = parseSidecarConfig(body);
    expect(parsed.ok === false && parsed.error).toMatch(message);
  });
});
