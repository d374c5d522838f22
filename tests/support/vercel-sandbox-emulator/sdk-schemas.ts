import type { z } from "zod";
/**
 * The pinned SDK's own zod schemas of the API's answers (its api-client/validators). They
 * are not in the package's export map, so they are loaded by file; the emulator checks
 * every answer against them before sending it, so an answer the real SDK would reject can
 * never pass a test. Names the SDK ships without type declarations are looked up by name
 * and fail loudly if an SDK upgrade renames them.
 */
import * as validators from "../../../node_modules/@vercel/sandbox/dist/api-client/validators.js";

function byName(name: string): z.ZodType {
  const schema = (validators as unknown as Record<string, z.ZodType | undefined>)[name];
  if (!schema || typeof schema.safeParse !== "function") {
    throw new Error(`@vercel/sandbox no longer has the validator "${name}": update the emulator`);
  }
  return schema;
}

export const sdk = {
  SandboxAndSessionResponse: byName("SandboxAndSessionResponse"),
  SandboxesPaginationResponse: byName("SandboxesPaginationResponse"),
  UpdateSandboxResponse: byName("UpdateSandboxResponse"),
  SessionResponse: validators.SessionResponse,
  StopSessionResponse: validators.StopSessionResponse,
  CreateSnapshotResponse: validators.CreateSnapshotResponse,
  SnapshotResponse: validators.SnapshotResponse,
  SnapshotsResponse: byName("SnapshotsResponse"),
  CommandResponse: validators.CommandResponse,
  CommandFinishedResponse: validators.CommandFinishedResponse,
  LogLine: validators.LogLine,
  EmptyResponse: byName("EmptyResponse"),
  /** What the SDK itself accepts as a network policy before sending it. */
  NetworkPolicyRequest: byName("NetworkPolicyRequestValidator"),
} as const;

export type SdkSchemaName = keyof typeof sdk;
