import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { removeDir, tempDir } from "../../tests/support/sidecar-harness";
import { LineSplitter, LogFile, MAX_LINE_CHARS } from "./log-file";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

function logAt(maxBytes: number, redact: string[] = []) {
  const dir = tempDir();
  dirs.push(dir);
  const path = join(dir, "logs", "sidecar.log");
  return { path, log: new LogFile({ path, maxBytes, redact }) };
}

describe("LogFile", () => {
  it("writes one line per event with an ISO timestamp and level", () => {
    const { path, log } = logAt(10_000);
    log.info("hello");
    log.warn("multi\nline");
    log.error("bad");
    log.close();
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO hello$/);
    expect(lines[1]).toMatch(/ WARN multi line$/);
    expect(lines[2]).toMatch(/ ERROR bad$/);
  });

  it("rotates past maxBytes, keeping one .1 file, so the disk use stays bounded", () => {
    const { path, log } = logAt(1_000);
    for (let i = 0; i < 500; i++) log.info(`line ${i} ${"x".repeat(40)}`);
    log.close();
    expect(statSync(path).size).toBeLessThanOrEqual(1_000);
    expect(statSync(`${path}.1`).size).toBeLessThanOrEqual(1_000);
    expect(existsSync(`${path}.2`)).toBe(false);
    expect(readFileSync(path, "utf8")).toContain("line 499 ");
  });

  it("redacts secrets and truncates huge lines", () => {
    const { path, log } = logAt(100_000, ["hb-secret-value-123"]);
    log.info("leak hb-secret-value-123 here");
    log.info("y".repeat(MAX_LINE_CHARS * 2));
    log.close();
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain("hb-secret-value-123");
    expect(text).toContain("leak [redacted] here");
    expect(text.split("\n")[1]?.length).toBeLessThan(MAX_LINE_CHARS + 100);
  });
});

describe("LineSplitter", () => {
  it("emits complete lines, holds partial ones, splits over-long ones and flushes at the end", () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l));
    s.push("a\r\nb");
    s.push("c\n\n");
    s.push("z".repeat(MAX_LINE_CHARS + 5));
    s.push("tail");
    s.flush();
    expect(lines).toEqual(["a", "bc", "", "z".repeat(MAX_LINE_CHARS), "zzzzztail"]);
  });
});
