import { z } from "zod";
import { epochMs } from "../domain/epoch";
import type { OpenDelivery } from "./types";

/** A stored delivery mark (JSON in Redis, a row's `value` in SQLite), checked on read. */
export const openDeliverySchema: z.ZodType<OpenDelivery> = z.object({
  id: z.string(),
  channel: z.string(),
  conversation: z.string(),
  meta: z.record(z.string(), z.unknown()),
  until: epochMs,
});
