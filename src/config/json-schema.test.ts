import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { configJsonSchemaText } from "./json-schema";

it("the committed clawrun.schema.json matches the zod schema (run `npm run schema` after changing it)", () => {
  expect(readFileSync("clawrun.schema.json", "utf8")).toBe(configJsonSchemaText());
});
