import { z } from "zod";
import { ClawrunError } from "../../../protocol/clawrun-error";
import { ProviderError, SandboxNotFoundError, SnapshotNotFoundError } from "../types";
import { loadedVercelSdk } from "./sdk";

/**
 * What went wrong in an SDK call, in ClawRun's errors. The API answers `{ error: { code,
 * message } }`; the SDK reads 404 as "not found", 410 as "the session is stopped" (410 with
 * code "snapshot_not_found": the state a sandbox would resume from is gone), 422 with
 * "sandbox_stopping" / "sandbox_snapshotting" as "busy" (docs/vercel-sandbox.md).
 */

const errorBodySchema = z.object({
  error: z.object({ code: z.string().optional(), message: z.string().optional() }),
});

/** Pure: the parts of an API failure the mapping needs. */
export interface ApiFailure {
  status: number;
  code: string | null;
  message: string | null;
}

export function apiFailure(err: unknown): ApiFailure | null {
  const sdk = loadedVercelSdk();
  if (!sdk || !(err instanceof sdk.APIError)) return null;
  const body = errorBodySchema.safeParse(err.json);
  return {
    status: err.response.status,
    code: body.success ? (body.data.error.code ?? null) : null,
    message: body.success ? (body.data.error.message ?? null) : null,
  };
}

/** What the failed call was about, so a 404 becomes the right "not found". */
export interface CallContext {
  /** e.g. "create a sandbox", "read a file" */
  action: string;
  sandboxId?: string;
  snapshotId?: string;
}

/** Pure: the ClawRun error for an API failure. */
export function errorForFailure(f: ApiFailure, ctx: CallContext): ClawrunError {
  const said = f.message ?? `HTTP ${f.status}`;
  if (f.code === "snapshot_not_found" && ctx.snapshotId !== undefined) {
    return new SnapshotNotFoundError(ctx.snapshotId);
  }
  if (f.code === "snapshot_not_found" && ctx.sandboxId !== undefined) {
    return new SandboxNotFoundError(
      ctx.sandboxId,
      `sandbox "${ctx.sandboxId}" cannot be resumed: the snapshot holding its files is gone (${said})`,
    );
  }
  if (f.status === 404 && ctx.snapshotId !== undefined) {
    return new SnapshotNotFoundError(ctx.snapshotId);
  }
  if (f.status === 404 && ctx.sandboxId !== undefined)
    return new SandboxNotFoundError(ctx.sandboxId);
  const where = ctx.sandboxId ? ` (sandbox ${ctx.sandboxId})` : "";
  if (f.status === 410) return new ProviderError(`cannot ${ctx.action}${where}: it is stopped`);
  if (f.status === 422 && (f.code === "sandbox_stopping" || f.code === "sandbox_snapshotting")) {
    return new ProviderError(
      `cannot ${ctx.action}${where}: it is ${f.code === "sandbox_stopping" ? "stopping" : "being snapshotted"}`,
    );
  }
  return new ProviderError(
    `Vercel Sandbox API refused to ${ctx.action}${where}: ${said} (HTTP ${f.status}${f.code ? `, ${f.code}` : ""})`,
  );
}

function isAbort(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === "AbortError" || name === "TimeoutError";
}

/** Any SDK failure as a ClawRun error; an abort (the caller gave up) passes through unchanged. */
export function mapSdkError(err: unknown, ctx: CallContext): unknown {
  if (err instanceof ClawrunError || isAbort(err)) return err;
  const failure = apiFailure(err);
  // Only the API's own words travel on, never the SDK's error with its response object.
  if (failure) return errorForFailure(failure, ctx);
  const StreamError = loadedVercelSdk()?.StreamError;
  if (StreamError && err instanceof StreamError) {
    return new ProviderError(`cannot ${ctx.action}: ${err.code}: ${err.message}`);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ProviderError(`cannot ${ctx.action}: ${message}`);
}

/** Runs one SDK call and rethrows its failure as a ClawRun error. */
export async function sdkCall<T>(ctx: CallContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw mapSdkError(err, ctx);
  }
}
