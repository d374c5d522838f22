import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isLiveState, parseStat, readStat, selfIdentity } from "./proc";
import { groupAlive, signalGroup } from "./process-groups";

const tail = "0 0 0 0 0 0 0 0 0 0 0 20 0 1 0 123456 0 0"; // fields 7…24

describe("parseStat", () => {
  it("reads the fields after the command name", () => {
    expect(parseStat(`42 (node) S 1 40 40 ${tail}`)).toEqual({
      pid: 42,
      state: "S",
      ppid: 1,
      pgrp: 40,
      session: 40,
      startTime: 123456,
    });
  });

  it("copes with spaces and parentheses in the command name", () => {
    expect(parseStat(`7 (a ) (b) c) T 3 7 7 ${tail}`)).toMatchObject({
      pid: 7,
      state: "T",
      startTime: 123456,
    });
  });

  it.each(["", "garbage", "12 (x) S 1 2"])("returns null for %j", (text) => {
    expect(parseStat(text)).toBeNull();
  });

  it("reads this very process", () => {
    const self = readStat(process.pid);
    expect(self?.pid).toBe(process.pid);
    expect(selfIdentity()).toEqual({ pid: process.pid, startTime: self?.startTime });
  });

  it.each([
    ["R", true],
    ["S", true],
    ["T", true],
    ["Z", false],
    ["X", false],
  ])("state %s is live: %s", (state, live) => {
    expect(isLiveState(state)).toBe(live);
  });
});

describe("process group identity (PID reuse guard)", () => {
  it("never signals a group whose leader pid now belongs to another process", () => {
    const me = selfIdentity();
    const impostor = {
      pid: me.pid,
      startTime: me.startTime + 1,
      commandId: "c",
      cmd: "x",
      startedAt: 0,
    };
    expect(groupAlive(impostor)).toBe(false);
    // Would kill this test process (and its group) if the guard did not hold.
    expect(signalGroup(impostor, "SIGKILL")).toBe(false);
  });

  it("sees a live group, then its end", async () => {
    const child = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
    const pid = child.pid as number;
    const rec = {
      pid,
      startTime: readStat(pid)?.startTime ?? -1,
      commandId: "c",
      cmd: "sleep",
      startedAt: 0,
    };
    expect(groupAlive(rec)).toBe(true);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    expect(signalGroup(rec, "SIGKILL")).toBe(true);
    await exited;
    expect(groupAlive(rec)).toBe(false);
  });
});
