import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GENERATION_FILE } from "../protocol/generation";
import { readRestoredGeneration } from "./restored-generation";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function rootWith(marker: string | null): string {
  const root = mkdtempSync(join(tmpdir(), "clawrun-generation-"));
  roots.push(root);
  if (marker !== null) {
    mkdirSync(join(root, ".clawrun"), { recursive: true });
    writeFileSync(join(root, GENERATION_FILE), marker);
  }
  return root;
}

function collect() {
  const lines: string[] = [];
  const log = { info: () => {}, warn: (m: string) => lines.push(m), error: () => {} };
  return { log, lines };
}

describe("the generation a sidecar reports (restore attestation)", () => {
  it("is the marker's generation", () => {
    const { log } = collect();
    const root = rootWith(JSON.stringify({ generation: 12, sandboxId: "s", writtenAt: 1 }));
    expect(readRestoredGeneration(root, log)).toBe(12);
  });

  it("is 0 in a sandbox that was never saved", () => {
    expect(readRestoredGeneration(rootWith(null), collect().log)).toBe(0);
  });

  it.each([
    ["not JSON", "{gener"],
    ["no generation", "{}"],
    ["a negative generation", '{"generation":-1}'],
    ["generation 0 (never written by a save)", '{"generation":0}'],
    ["a fraction", '{"generation":1.5}'],
    ["a string", '{"generation":"3"}'],
  ])("is null, with a warning, for a damaged marker: %s", (_name, text) => {
    const { log, lines } = collect();
    expect(readRestoredGeneration(rootWith(text), log)).toBeNull();
    expect(lines.join("\n")).toMatch(/damaged/);
  });
});
