import { describe, expect, it } from "vitest";
import { type FlagSpecs, parseArgs } from "./args";
import { CliError, EXIT } from "./exit-codes";

const SPECS: FlagSpecs = {
  json: { type: "boolean", description: "" },
  follow: { type: "boolean", short: "f", description: "" },
  conversation: { type: "string", short: "c", value: "<id>", description: "" },
  limit: { type: "integer", min: 1, max: 1000, value: "<n>", description: "" },
};

const parse = (argv: string[]) => parseArgs(argv, SPECS, "clawrun events");

function usage(argv: string[]): string {
  try {
    parse(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(EXIT.usage);
    return (err as Error).message;
  }
  throw new Error(`parsed without error: ${argv.join(" ")}`);
}

describe("parseArgs", () => {
  it.each([
    [[], [], {}],
    [["hello world"], ["hello world"], {}],
    [["--json", "hi"], ["hi"], { json: true }],
    [["-f"], [], { follow: true }],
    [["--conversation", "c1", "hi"], ["hi"], { conversation: "c1" }],
    [["--conversation=c 2", "hi"], ["hi"], { conversation: "c 2" }],
    [["-c", "c3"], [], { conversation: "c3" }],
    [["--limit", "5"], [], { limit: 5 }],
    [["--limit=1000"], [], { limit: 1000 }],
    [["--", "--json", "-f"], ["--json", "-f"], {}],
    [["-"], ["-"], {}],
    [["a", "--json", "b"], ["a", "b"], { json: true }],
  ] as [string[], string[], Record<string, unknown>][])("%j", (argv, positionals, flags) => {
    expect(parse(argv)).toEqual({ positionals, flags });
  });

  it.each([
    [["--bogus"], 'unknown flag --bogus for "clawrun events" (see clawrun events --help)'],
    [["--bogus=1"], "unknown flag --bogus for"],
    [["-x"], "unknown flag -x for"],
    [["--json=yes"], '--json takes no value (got "yes")'],
    [["--conversation"], "--conversation needs a value: --conversation <id>"],
    [["--conversation", "--json"], "--conversation needs a value"],
    [["--limit", "0"], '--limit: expected an integer from 1 to 1000, got "0"'],
    [["--limit", "1001"], "--limit: expected an integer from 1 to 1000"],
    [["--limit=2.5"], '--limit: expected an integer from 1 to 1000, got "2.5"'],
    [["--limit", "ten"], 'got "ten"'],
  ])("%j is a usage error", (argv, message) => {
    expect(usage(argv)).toContain(message);
  });
});
