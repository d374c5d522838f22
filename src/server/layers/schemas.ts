import { z } from "zod";

/**
 * How a layer recipe and an agent's boot record are stored (the local provider's files beside
 * its layers, the templated provider's store entries): one shape for both, read back checked.
 */
export const layerRecipeSchema = z.object({
  name: z.string(),
  inputs: z.record(z.string(), z.string()),
  build: z.array(z.string()),
  mountAt: z.string(),
  buildEnv: z.record(z.string(), z.string()).optional(),
});

export const layerBootRecordSchema = z.object({
  good: z.object({ id: z.string(), recipe: layerRecipeSchema }).nullable(),
  failed: z.array(z.string()),
});
