import { z } from "zod";

/**
 * The requests the pinned SDK sends, field for field as its api-client builds them
 * (node_modules/@vercel/sandbox/dist/api-client/api-client.js). Strict on purpose: a field
 * the emulator has never seen is an unknown request, so an SDK upgrade cannot drift silently.
 * Query strings always carry the SDK's `teamId`.
 */

const name = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/);
const ms = z.number().int().nonnegative();
const boolString = z.enum(["true", "false"]);
const limit = z.coerce.number().int().min(1).max(50).optional();

export const teamQuery = z.strictObject({ teamId: z.string().min(1) });

/** Calls the SDK makes without a body. */
export const emptyBody = z.strictObject({});

export const createSandboxBody = z.strictObject({
  projectId: z.string().min(1),
  name: name.optional(),
  ports: z.array(z.number().int().min(1).max(65535)).max(15).optional(),
  source: z
    .discriminatedUnion("type", [
      z.strictObject({ type: z.literal("snapshot"), snapshotId: z.string().min(1) }),
      z.strictObject({
        type: z.literal("git"),
        url: z.string(),
        depth: z.number().optional(),
        revision: z.string().optional(),
        username: z.string().optional(),
        password: z.string().optional(),
      }),
      z.strictObject({ type: z.literal("tarball"), url: z.string() }),
    ])
    .optional(),
  timeout: z.number().int().positive().optional(),
  resources: z.strictObject({ vcpus: z.number().int().min(1).max(8) }).optional(),
  runtime: z.string().min(1).optional(),
  image: z.string().min(1).optional(),
  persistent: z.boolean().optional(),
  /** Checked again with the SDK's own NetworkPolicyRequestValidator. */
  networkPolicy: z.unknown().optional(),
  env: z.record(z.string(), z.string()).optional(),
  tags: z.record(z.string(), z.string()).optional(),
  snapshotExpiration: ms.optional(),
  keepLastSnapshots: z
    .strictObject({
      count: z.number().int().min(1).max(10),
      expiration: ms.optional(),
      deleteEvicted: z.boolean().optional(),
    })
    .optional(),
  region: z.string().min(1).optional(),
});
export type CreateSandboxBody = z.output<typeof createSandboxBody>;

export const listSandboxesQuery = teamQuery.extend({
  project: z.string().min(1),
  limit,
  sortBy: z.enum(["createdAt", "name", "statusUpdatedAt"]).optional(),
  sortOrder: z.enum(["asc", "desc"]).optional(),
  namePrefix: z.string().optional(),
  cursor: z.string().optional(),
  /** "key:value"; the API supports exactly one tag filter. */
  tags: z
    .string()
    .regex(/^[^:]+:.*$/)
    .optional(),
});

export const getSandboxQuery = teamQuery.extend({
  projectId: z.string().min(1),
  resume: boolString.optional(),
});

export const deleteSandboxQuery = teamQuery.extend({
  projectId: z.string().min(1),
  deleteOrphanSnapshots: z.literal("true").optional(),
});

export const listSnapshotsQuery = teamQuery.extend({
  project: z.string().min(1),
  name: name.optional(),
  limit,
  cursor: z.string().optional(),
  sortOrder: z.enum(["asc", "desc"]).optional(),
});

export const runCommandBody = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()),
  cwd: z.string().optional(),
  env: z.record(z.string(), z.string()),
  sudo: z.boolean(),
  wait: z.literal(true).optional(),
  logs: z.literal(true).optional(),
  timeout: z.number().int().positive().optional(),
});
export type RunCommandBody = z.output<typeof runCommandBody>;

export const getCommandQuery = teamQuery.extend({ wait: z.literal("true").optional() });

export const killCommandBody = z.strictObject({ signal: z.number().int().min(1).max(64) });

export const extendTimeoutBody = z.strictObject({ duration: z.number().int().positive() });

export const snapshotBody = z.strictObject({ expiration: ms.optional() });

export const fsPathBody = z.strictObject({ path: z.string().min(1), cwd: z.string().optional() });
