import { describe, expect, it } from "vitest";
import type { Command } from "./command";
import { EXIT } from "./exit-codes";
import { resolveCommand } from "./resolve";

const cmd = (name: string): Command => ({
  name,
  summary: name,
  arity: { min: 0, max: 0 },
  flags: {},
  run: async () => EXIT.ok,
});
const LIST = [cmd("status"), cmd("snapshots"), cmd("snapshots delete"), cmd("config check")];

describe("resolveCommand", () => {
  it("prefers the two-word command and hands on the rest", () => {
    const r = resolveCommand(["snapshots", "delete", "snap-1", "--json"], LIST);
    expect(r.kind === "command" && r.command.name).toBe("snapshots delete");
    expect(r.kind === "command" && r.rest).toEqual(["snap-1", "--json"]);
    const one = resolveCommand(["snapshots", "--json"], LIST);
    expect(one.kind === "command" && one.command.name).toBe("snapshots");
  });

  it("answers help and version", () => {
    expect(resolveCommand([], LIST)).toEqual({ kind: "help", command: null });
    expect(resolveCommand(["--help"], LIST)).toEqual({ kind: "help", command: null });
    expect(resolveCommand(["help", "config", "check"], LIST)).toMatchObject({
      kind: "help",
      command: { name: "config check" },
    });
    expect(resolveCommand(["--version"], LIST)).toEqual({ kind: "version" });
  });

  it.each([
    [["stats"], 'unknown command "stats" (see clawrun --help)'],
    [["config"], '"clawrun config" needs one of: check'],
    [["config", "lint"], '"clawrun config" needs one of: check (got "lint")'],
    [["help", "nope"], 'unknown command "nope"'],
  ])("%j is a usage error", (argv, message) => {
    expect(() => resolveCommand(argv, LIST)).toThrow(message);
  });
});
