import { describe, expect, it } from "vitest";
import { chooseTemplate, manifestProblem, type TemplateRecord } from "./template-choice";

const record: TemplateRecord = {
  layerId: "openclaw-abc",
  snapshotId: "snap_1",
  builtAt: 1,
  buildMs: 2,
};

describe("chooseTemplate", () => {
  it.each<[string, Parameters<typeof chooseTemplate>[0], ReturnType<typeof chooseTemplate>]>([
    [
      "none recorded: build",
      { layerId: "openclaw-abc", record: null, problem: null },
      { kind: "build" },
    ],
    [
      "recorded and fine: use it",
      { layerId: "openclaw-abc", record, problem: null },
      { kind: "use", snapshotId: "snap_1" },
    ],
    [
      "another layer's record: build ours",
      { layerId: "openclaw-new", record, problem: null },
      { kind: "build" },
    ],
    [
      "its snapshot is gone: rebuild, saying so",
      { layerId: "openclaw-abc", record, problem: { kind: "snapshot-gone" } },
      {
        kind: "rebuild",
        because: "its template snapshot snap_1 no longer exists (deleted or expired)",
      },
    ],
    [
      "its layer failed the check: rebuild, saying why",
      { layerId: "openclaw-abc", record, problem: { kind: "verify-failed", detail: "x" } },
      { kind: "rebuild", because: "the layer in its template snapshot snap_1 failed its check: x" },
    ],
  ])("%s", (_name, facts, choice) => {
    expect(chooseTemplate(facts)).toEqual(choice);
  });
});

describe("manifestProblem", () => {
  it.each<[string | null, string | null]>([
    ['{"id":"openclaw-abc"}', null],
    [null, "the layer's manifest is missing"],
    ["{", "the layer's manifest is not JSON"],
    ['{"id":"openclaw-old"}', 'the layer\'s manifest names "openclaw-old", not openclaw-abc'],
    ["null", "the layer's manifest names undefined, not openclaw-abc"],
  ])("%s", (raw, problem) => {
    expect(manifestProblem(raw, "openclaw-abc")).toBe(problem);
  });
});
