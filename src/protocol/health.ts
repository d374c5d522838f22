import { z } from "zod";
import { daemonStatusSchema } from "./heartbeat";

/** `GET /health` on the sidecar (docs/sidecar.md). `ok` is true only when the daemon is running. */
export const sidecarHealthSchema = z.object({
  ok: z.boolean(),
  daemon: z.object({
    status: daemonStatusSchema,
    pid: z.number().int().nullable(),
    restarts: z.number().int().nonnegative(),
  }),
  heartbeat: z.object({
    lastTick: z.number().int().nullable(),
    lastSuccess: z.boolean().nullable(),
  }),
  uptime: z.number().nonnegative(),
  /** The save this sandbox was restored from (src/protocol/generation.ts): 0 none, null unreadable. */
  generation: z.number().int().nonnegative().nullable().optional(),
});
export type SidecarHealth = z.infer<typeof sidecarHealthSchema>;
