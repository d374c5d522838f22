import { z } from "zod";
import { clawrunConfigSchema } from "./schema";

/** JSON Schema (draft 2020-12) of clawrun.json as the user writes it (defaults optional). */
export function configJsonSchemaText(): string {
  const schema = z.toJSONSchema(clawrunConfigSchema, { io: "input", unrepresentable: "any" });
  return `${JSON.stringify({ ...schema, title: "clawrun.json" }, null, 2)}\n`;
}
