/** Writes clawrun.schema.json from the zod schema, so editors validate clawrun.json as you type. */
import { writeFileSync } from "node:fs";
import { configJsonSchemaText } from "../src/config/json-schema";
import { clawrunConfigSchema } from "../src/server/compose/config-schema";

writeFileSync("clawrun.schema.json", configJsonSchemaText(clawrunConfigSchema));
console.log("wrote clawrun.schema.json");
