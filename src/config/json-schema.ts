import { z } from "zod";

/** JSON Schema (draft 2020-12) of clawrun.json as the user writes it (defaults optional). */
export function configJsonSchemaText(configSchema: z.ZodType): string {
  const schema = z.toJSONSchema(configSchema, { io: "input", unrepresentable: "any" });
  return `${JSON.stringify({ ...schema, title: "clawrun.json" }, null, 2)}\n`;
}
