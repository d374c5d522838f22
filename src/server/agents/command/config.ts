import { z } from "zod";
import { agentBaseShape, nonEmpty, positiveInt } from "../../../config/schema";
import { modelChoiceSchema } from "../model-choice";

/** How a message is handed to a running daemon over HTTP. */
const deliverySchema = z.strictObject({
  path: z
    .string()
    .startsWith("/", { error: 'expected a path starting with "/"' })
    .default("/message"),
  /** `json`: POST {id, conversation, text}, reply read from JSON `reply`/`text` or the raw body. `text`: POST the text as text/plain. */
  format: z.enum(["json", "text"], { error: 'expected "json" or "text"' }).default("json"),
  timeoutMs: positiveInt().default(30_000),
});

export const commandConfigSchema = z.strictObject({
  type: z.literal("command"),
  ...agentBaseShape,
  command: nonEmpty("the daemon's executable (a non-empty string)"),
  /** `{PORT}` in an argument is replaced with the port the daemon must listen on. */
  args: z.array(z.string(), { error: "expected an array of strings" }).default([]),
  delivery: deliverySchema.default({ path: "/message", format: "json", timeoutMs: 30_000 }),
  /** Files copied from the project into the sandbox root before start: { "sandbox/path": "local/path" }. */
  files: z.record(z.string(), z.string()).default({}),
  /**
   * The model the daemon calls, through ClawRun's model gateway: the daemon gets
   * CLAWRUN_MODEL_URL and CLAWRUN_MODEL_KEY (a per-sandbox credential), never the real key.
   */
  model: modelChoiceSchema.optional(),
});

export type CommandAgentConfig = z.output<typeof commandConfigSchema>;
