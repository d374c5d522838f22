import { describe, expect, it } from "vitest";
import { type ListedSandbox, orphanIds } from "./orphans";

const sbx = (id: string, over: Partial<ListedSandbox> = {}): ListedSandbox => ({
  id,
  status: "running",
  labels: { instance: "clawrun" },
  ...over,
});
const owner = { instance: "clawrun", currentSandboxId: "sbx_cur" };

describe("orphanIds (pure)", () => {
  it.each([
    ["the current sandbox is not an orphan", [sbx("sbx_cur")], []],
    ["another running sandbox of this instance is", [sbx("sbx_cur"), sbx("sbx_old")], ["sbx_old"]],
    ["one being created (pending) is", [sbx("sbx_new", { status: "pending" })], ["sbx_new"]],
    ["a stopped one is not", [sbx("sbx_old", { status: "stopped" })], []],
    ["another instance's is not", [sbx("sbx_x", { labels: { instance: "other" } })], []],
    ["an unlabelled one is not", [sbx("sbx_x", { labels: {} })], []],
    ["a worker is not", [sbx("sbx_w", { labels: { instance: "clawrun", role: "worker" } })], []],
  ] as const)("%s", (_, listed, expected) => {
    expect(orphanIds(listed, owner)).toEqual(expected);
  });

  it("with no current sandbox (asleep, or a start that died mid-create) every live one is", () => {
    expect(orphanIds([sbx("sbx_a"), sbx("sbx_b")], { ...owner, currentSandboxId: null })).toEqual([
      "sbx_a",
      "sbx_b",
    ]);
  });
});
