import { z } from "zod";

/**
 * The parts of the operator API's answers (docs/api.md) the CLI reads, parsed at the boundary.
 * Objects are loose: fields the CLI does not show may come and go without breaking it.
 */

const ms = z.number();
const nullableMs = ms.nullable().optional();

export const overviewSchema = z.looseObject({
  now: ms,
  instance: z.looseObject({
    name: z.string(),
    provider: z.string(),
    agent: z.string(),
    status: z.string(),
    since: nullableMs,
    reason: z.string().nullable().optional(),
    sandboxId: z.string().nullable().optional(),
    snapshotId: z.string().nullable().optional(),
    error: z.string().nullable().optional(),
    ttlDeadline: nullableMs,
    lost: z
      .looseObject({ at: ms, snapshotId: z.string().nullable().optional() })
      .nullable()
      .optional(),
  }),
  agent: z
    .looseObject({ type: z.string(), version: z.string().nullable(), model: z.string().nullable() })
    .optional(),
  transitioning: z.boolean().optional(),
  heartbeat: z
    .looseObject({
      receivedAt: ms,
      daemonStatus: z.string(),
      daemonRestarts: z.number(),
    })
    .nullable()
    .optional(),
  forecast: z.looseObject({ reason: z.string().nullable(), activeUntil: ms }).nullable().optional(),
  nextRetryAt: nullableMs,
  inbox: z.looseObject({ pending: z.number(), dead: z.number() }),
  cron: z
    .looseObject({ nextDueAt: nullableMs, nextJob: z.string().nullable().optional() })
    .optional(),
  awake: z
    .looseObject({
      month: z.looseObject({ awakeMs: ms, awakeShare: z.number(), windowMs: ms }),
    })
    .optional(),
});
export type OverviewView = z.infer<typeof overviewSchema>;

export const eventSchema = z.looseObject({
  id: z.string(),
  at: ms,
  type: z.string(),
  level: z.string(),
  sandboxId: z.string().nullable().optional(),
  message: z.string(),
  details: z.unknown().optional(),
});
export type EventView = z.infer<typeof eventSchema>;
export const eventsSchema = z.looseObject({ events: z.array(eventSchema) });

export const logLineSchema = z.looseObject({ text: z.string(), source: z.string().optional() });
export type LogLineView = z.infer<typeof logLineSchema>;
export const logsSchema = z.looseObject({
  sandboxId: z.string().nullable(),
  lines: z.array(logLineSchema),
  note: z.string().nullable().optional(),
});

export const snapshotSchema = z.looseObject({
  id: z.string(),
  createdAt: ms,
  sourceSandboxId: z.string().nullable().optional(),
  sizeBytes: z.number().nullable().optional(),
});
export type SnapshotView = z.infer<typeof snapshotSchema>;
export const snapshotsSchema = z.looseObject({ snapshots: z.array(snapshotSchema) });

export const transitionSchema = z.looseObject({
  action: z.string(),
  from: z.string(),
  to: z.string(),
});
export type TransitionView = z.infer<typeof transitionSchema>;

export const deletedSchema = z.looseObject({ deleted: z.string() });

export const webhookAnswerSchema = z.discriminatedUnion("status", [
  z.looseObject({
    status: z.literal("delivered"),
    id: z.string(),
    reply: z.string().nullable().optional(),
  }),
  z.looseObject({ status: z.literal("queued"), id: z.string() }),
  z.looseObject({ status: z.literal("duplicate"), id: z.string() }),
]);

export const apiErrorSchema = z.looseObject({
  error: z.looseObject({ code: z.string(), message: z.string() }),
});

export const inboxItemSchema = z.looseObject({
  id: z.string(),
  channel: z.string(),
  conversation: z.string(),
  text: z.string(),
  receivedAt: ms,
  attempts: z.number(),
  lastError: z.string().nullable().optional(),
});
export type InboxItemView = z.infer<typeof inboxItemSchema>;
const queueSchema = z.looseObject({
  counts: z.looseObject({ pending: z.number(), dead: z.number() }),
  pending: z.array(inboxItemSchema),
  dead: z.array(inboxItemSchema),
});
export const inboxSchema = queueSchema.extend({ replies: queueSchema });
export type InboxView = z.infer<typeof inboxSchema>;

export const retriedSchema = z.looseObject({ retried: z.string() });

export const configRowsSchema = z.looseObject({
  rows: z.array(z.looseObject({ key: z.string(), value: z.string(), source: z.string() })),
});
export type ConfigRowView = z.infer<typeof configRowsSchema>["rows"][number];

/** GET /api/sandbox/channels (docs/api.md). */
export const channelCardsSchema = z.looseObject({
  channels: z.array(
    z.looseObject({
      name: z.string(),
      missingEnv: z.array(z.string()),
      webhookRegistered: z.boolean().nullable(),
      webhookUrl: z.string(),
      detail: z.string(),
      canRegister: z.boolean(),
    }),
  ),
});
export type ChannelCardView = z.infer<typeof channelCardsSchema>["channels"][number];

/** POST /api/sandbox/channels/{name}/register: 200 registered, 502 the platform refused. */
export const registeredSchema = z.looseObject({ ok: z.boolean(), detail: z.string() });

/** POST /api/sandbox/layer (`agent prepare`). */
export const preparedLayerSchema = z.looseObject({
  layerId: z.string(),
  kind: z.enum(["template", "shared"]),
  action: z.enum(["reused", "built", "rebuilt"]),
  snapshotId: z.string().nullable(),
  ms: z.number(),
});

/** GET /api/agents: the deployment's agents, in clawrun.json's order (docs/api.md). */
export const fleetSchema = z.looseObject({
  agents: z.array(
    z.looseObject({
      name: z.string(),
      isDefault: z.boolean(),
      status: z.string(),
      since: nullableMs,
      error: z.string().nullable().optional(),
      activeUntil: nullableMs,
      pending: z.number(),
      failed: z.number(),
      awakeTodayMs: z.number(),
    }),
  ),
});
export type FleetRowView = z.infer<typeof fleetSchema>["agents"][number];
