/** Writes clawrun.schema.json from the zod schema, so editors validate clawrun.json as you type. */
import { writeFileSync } from "node:fs";
import { configJsonSchemaText } from "../src/config/json-schema";

writeFileSync("clawrun.schema.json", configJsonSchemaText());
console.log("wrote clawrun.schema.json");
