import { z } from "zod";
import { agentBaseShape, positiveInt } from "../../../config/schema";
import { checkModelChoice, modelChoiceShape } from "../model-choice";

/** One OpenClaw turn may take minutes with a slow model; the person sees "typing" meanwhile. */
export const OPENCLAW_DELIVERY_TIMEOUT_MS = 5 * 60_000;

/**
 * `agent` in clawrun.json for OpenClaw: only the model is the user's to choose; everything
 * else (version, gateway, token, sessions) is ClawRun's (docs/agents/openclaw.md).
 */
export const openclawConfigSchema = z
  .strictObject({
    type: z.literal("openclaw"),
    ...agentBaseShape,
    ...modelChoiceShape,
    /** How long one message may take, in ms (default 5 minutes). */
    deliveryTimeoutMs: positiveInt("a timeout in milliseconds").default(
      OPENCLAW_DELIVERY_TIMEOUT_MS,
    ),
    /**
     * Advanced: an npm cache directory (absolute path, as seen inside the sandbox) for the
     * install, e.g. a warm cache shared by local sandboxes. Default: a cache inside the
     * sandbox that is removed after the install, so snapshots stay small.
     */
    npmCacheDir: z
      .string({ error: "expected an absolute directory path" })
      .startsWith("/", { error: "expected an absolute directory path" })
      .optional(),
  })
  .superRefine(checkModelChoice);

export type OpenClawAgentConfig = z.output<typeof openclawConfigSchema>;
