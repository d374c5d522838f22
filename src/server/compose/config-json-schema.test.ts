import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { configJsonSchemaText } from "../../config/json-schema";
import { clawrunConfigSchema } from "./config-schema";

it("the committed clawrun.schema.json matches the zod schema (run `npm run schema` after changing it)", () => {
  expect(readFileSync("clawrun.schema.json", "utf8")).toBe(
    configJsonSchemaText(clawrunConfigSchema),
  );
});
