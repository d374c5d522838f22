import { describe, expect, it } from "vitest";
import {
  changedWhilePacking,
  fromChunks,
  isStateArchiveId,
  planStateSave,
  STATE_CHUNK_BYTES,
  toChunks,
} from "./state-archive-plan";

const MiB = 1024 * 1024;

describe("planStateSave: an archive in the store up to the cap, a full snapshot above it", () => {
  it.each([
    [0, 8 * MiB, { kind: "archive", chunks: 1 }],
    [1, 8 * MiB, { kind: "archive", chunks: 1 }],
    [STATE_CHUNK_BYTES, 8 * MiB, { kind: "archive", chunks: 1 }],
    [STATE_CHUNK_BYTES + 1, 8 * MiB, { kind: "archive", chunks: 2 }],
    [8 * MiB, 8 * MiB, { kind: "archive", chunks: 32 }],
  ])("%i bytes under a %i-byte cap", (bytes, cap, plan) => {
    expect(planStateSave(bytes, cap)).toEqual(plan);
  });

  it("over the cap names both sizes and the setting", () => {
    expect(planStateSave(8 * MiB + 1, 8 * MiB)).toEqual({
      kind: "full-snapshot",
      reason:
        "the agent's state is 8.0 MiB compressed, over the 8.0 MiB cap for the store (maxStateArchiveMiB)",
    });
  });

  it("a cap of 0 turns archives off", () => {
    expect(planStateSave(10, 0)).toMatchObject({ kind: "full-snapshot" });
  });

  it("refuses a size that is not a whole number of bytes", () => {
    expect(() => planStateSave(-1, MiB)).toThrow(/whole number/);
    expect(() => planStateSave(1.5, MiB)).toThrow(/whole number/);
  });
});

describe("chunks", () => {
  it.each([0, 1, 1000, 3 * 1000 + 7])("round-trips %i bytes in 1000-byte chunks", (n) => {
    const bytes = Buffer.from(Array.from({ length: n }, (_, i) => i % 251));
    const chunks = toChunks(bytes, 1000);
    expect(chunks).toHaveLength(Math.max(1, Math.ceil(n / 1000)));
    expect(fromChunks(chunks, chunks.length).equals(bytes)).toBe(true);
  });

  it("a missing chunk or a wrong count is an error, never a short archive", () => {
    const chunks = toChunks(Buffer.alloc(2500), 1000);
    expect(() => fromChunks([chunks[0] as string, null, chunks[2] as string], 3)).toThrow(
      "incomplete: 2 of 3",
    );
    expect(() => fromChunks(chunks.slice(0, 2), 3)).toThrow("incomplete");
  });
});

describe("changedWhilePacking: only the agent's idle chatter may change while packed", () => {
  const volatile = ["logs", ".clawrun", ".openclaw/state/openclaw.sqlite-wal"];
  it.each<[string, string, boolean]>([
    ["the sidecar log", "tar: ./logs/sidecar.log: file changed as we read it", true],
    [
      "a declared WAL",
      "tar: ./.openclaw/state/openclaw.sqlite-wal: file changed as we read it",
      true,
    ],
    [
      "the agent's database",
      "tar: ./.openclaw/state/openclaw.sqlite: file changed as we read it",
      false,
    ],
    ["the root itself", "tar: .: file changed as we read it", false],
    ["a prefix that is not a parent", "tar: ./logsX/a: file changed as we read it", false],
    [
      "another error beside",
      "tar: ./logs/a: file changed as we read it\ntar: ./x: Cannot open",
      false,
    ],
    ["nothing named", "", false],
  ])("%s", (_name, stderr, tolerable) => {
    expect(changedWhilePacking(stderr, volatile).tolerable).toBe(tolerable);
  });
});

it("state archive ids cannot be mistaken for a provider's snapshot ids", () => {
  expect(isStateArchiveId("state_mfx1_0a1b2c3d4e5f")).toBe(true);
  expect(isStateArchiveId("snap_abc123")).toBe(false);
  expect(isStateArchiveId("state_../../x")).toBe(false);
});
