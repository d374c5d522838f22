import { z } from "zod";
import { agentBaseShape, positiveInt } from "../../../config/schema";
import { checkModelChoice, modelChoiceShape } from "../model-choice";

/** One ZeroClaw turn may take minutes with a slow model; also its gateway's request timeout. */
export const ZEROCLAW_DELIVERY_TIMEOUT_MS = 5 * 60_000;

/**
 * `agent` in clawrun.json for ZeroClaw: only the model is the user's to choose; the release,
 * its checksum, the gateway and its token are ClawRun's (docs/agents/zeroclaw.md).
 */
export const zeroclawConfigSchema = z
  .strictObject({
    type: z.literal("zeroclaw"),
    ...agentBaseShape,
    ...modelChoiceShape,
    /** How long one message may take, in ms (default 5 minutes). */
    deliveryTimeoutMs: positiveInt("a timeout in milliseconds").default(
      ZEROCLAW_DELIVERY_TIMEOUT_MS,
    ),
  })
  .superRefine(checkModelChoice);

export type ZeroClawAgentConfig = z.output<typeof zeroclawConfigSchema>;
