import { describe, expect, it } from "vitest";
import { INITIAL_STATE } from "../state-cell";
import {
  attest,
  expectedGeneration,
  nextGeneration,
  REMEMBERED_GENERATIONS,
  savedGeneration,
} from "./attestation";

const state = { ...INITIAL_STATE, generation: 7, snapshotGenerations: { snap_a: 6, snap_b: 7 } };

describe("restore attestation: which generation a sandbox must report", () => {
  it.each([
    ["a fresh sandbox holds no marker", { kind: "fresh" } as const, 0],
    ["a resumed sandbox holds the newest save", { kind: "resume" } as const, 7],
    [
      "a restored snapshot holds its own save",
      { kind: "restore", snapshotId: "snap_a" } as const,
      6,
    ],
    [
      "a snapshot taken before attestation (unknown) is not checked",
      { kind: "restore", snapshotId: "snap_old" } as const,
      null,
    ],
  ])("%s", (_name, how, expected) => {
    expect(expectedGeneration(state, how)).toBe(expected);
  });
});

describe("attest", () => {
  it.each([
    ["the expected generation", 6, 6, true],
    ["nothing expected: anything passes", null, 3, true],
    ["an older save", 7, 6, false],
    ["a newer save", 6, 7, false],
    ["a damaged marker", 6, null, false],
    ["a sidecar that reports nothing", 6, undefined, false],
    ["a marker where an empty sandbox was expected", 0, 2, false],
    ["no marker where a save was expected", 2, 0, false],
    ["an empty sandbox, as expected", 0, 0, true],
  ] as const)("%s", (_name, expected, found, ok) => {
    expect(attest(expected, found).ok).toBe(ok);
  });

  it("names what it found and what it expected", () => {
    expect(attest(7, 6)).toEqual({
      ok: false,
      expected: 7,
      found: 6,
      message: "found generation 6, expected generation 7",
    });
    expect(attest(3, 0)).toMatchObject({
      message: "found no generation marker (an empty sandbox), expected generation 3",
    });
    expect(attest(3, null)).toMatchObject({
      message: "found no readable generation marker, expected generation 3",
    });
  });
});

describe("generations of saves", () => {
  it("counts up from the newest save", () => {
    expect(nextGeneration(INITIAL_STATE)).toBe(1);
    expect(nextGeneration(state)).toBe(8);
  });

  it("remembers a snapshot's generation; a resumable save only moves the counter", () => {
    expect(savedGeneration(state, 8, "snap_c")).toEqual({
      generation: 8,
      snapshotGenerations: { snap_a: 6, snap_b: 7, snap_c: 8 },
    });
    expect(savedGeneration(state, 8, null)).toEqual({
      generation: 8,
      snapshotGenerations: state.snapshotGenerations,
    });
  });

  it("forgets the oldest beyond what it remembers", () => {
    let s = INITIAL_STATE;
    for (let g = 1; g <= REMEMBERED_GENERATIONS + 5; g++)
      s = { ...s, ...savedGeneration(s, g, `snap_${g}`) };
    expect(Object.keys(s.snapshotGenerations)).toHaveLength(REMEMBERED_GENERATIONS);
    expect(s.snapshotGenerations.snap_1).toBeUndefined();
    expect(s.snapshotGenerations[`snap_${REMEMBERED_GENERATIONS + 5}`]).toBe(
      REMEMBERED_GENERATIONS + 5,
    );
  });
});
