import { describe, expect, it } from "vitest";
import { z } from "zod";
import { secret, secretPaths } from "./secret-paths";

describe("secretPaths: values the schema marks secret", () => {
  const schema = z.object({
    name: z.string(),
    env: z
      .record(z.string(), secret(z.union([z.string(), z.object({ fromEnv: z.string() })])))
      .default({}),
    agent: z
      .discriminatedUnion("type", [
        z.object({ type: z.literal("a"), key: secret(z.string()) }),
        z.object({ type: z.literal("b"), token: z.string() }),
      ])
      .optional(),
    list: z.array(z.object({ password: secret(z.string()).optional() })).default([]),
  });

  it("finds them through records, unions, arrays, defaults and optionals", () => {
    const value = schema.parse({
      name: "x",
      env: { A: "literal", B: { fromEnv: "B_VAR" } },
      agent: { type: "a", key: "sk-1" },
      list: [{ password: "p" }, {}],
    });
    expect(secretPaths(schema, value).sort()).toEqual([
      "agent.key",
      "env.A",
      "env.B",
      "list.0.password",
      "list.1.password",
    ]);
  });

  it("follows the union option that takes the value", () => {
    expect(
      secretPaths(schema, schema.parse({ name: "x", agent: { type: "b", token: "t" } })),
    ).toEqual([]);
  });
});
