import { APIError, StreamError } from "@vercel/sandbox";
import { beforeAll, describe, expect, it } from "vitest";
import {
  PathEscapeError,
  ProviderError,
  SandboxNotFoundError,
  SnapshotNotFoundError,
} from "../types";
import { mapSdkError } from "./errors";
import { vercelSdk } from "./sdk";

// The provider loads the SDK at its first call (sdk.ts); its errors are recognised from then.
beforeAll(() => vercelSdk());

/** An APIError as the SDK builds it from an answer `{ error: { code, message } }`. */
function apiError(status: number, code?: string, message?: string): APIError<unknown> {
  const json = code || message ? { error: { code, message } } : undefined;
  return new APIError(new Response(null, { status }), { message: `Status code ${status}`, json });
}

describe("SDK errors as ClawRun errors", () => {
  it("404 is the not-found error of what the call was about", () => {
    const sandbox = mapSdkError(apiError(404, "not_found"), { action: "get", sandboxId: "sb1" });
    expect(sandbox).toBeInstanceOf(SandboxNotFoundError);
    expect((sandbox as SandboxNotFoundError).sandboxId).toBe("sb1");
    const snap = mapSdkError(apiError(404), { action: "delete", snapshotId: "snap_1" });
    expect(snap).toBeInstanceOf(SnapshotNotFoundError);
  });

  it("snapshot_not_found: the snapshot when creating from it, the sandbox when resuming", () => {
    const create = mapSdkError(apiError(404, "snapshot_not_found"), {
      action: "create a sandbox",
      snapshotId: "snap_gone",
    });
    expect(create).toBeInstanceOf(SnapshotNotFoundError);
    const resume = mapSdkError(apiError(410, "snapshot_not_found", "snapshot expired"), {
      action: "resume the sandbox",
      sandboxId: "clawrun-main",
    });
    expect(resume).toBeInstanceOf(SandboxNotFoundError);
    expect((resume as Error).message).toBe(
      'sandbox "clawrun-main" cannot be resumed: the snapshot holding its files is gone (snapshot expired)',
    );
  });

  it.each([
    [410, "sandbox_stopped", "cannot read a file (sandbox sb1): it is stopped"],
    [422, "sandbox_stopping", "cannot read a file (sandbox sb1): it is stopping"],
    [422, "sandbox_snapshotting", "cannot read a file (sandbox sb1): it is being snapshotted"],
  ])("%i %s is a ProviderError saying so", (status, code, message) => {
    const err = mapSdkError(apiError(status, code), { action: "read a file", sandboxId: "sb1" });
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as Error).message).toBe(message);
  });

  it("anything else carries the API's own message", () => {
    const err = mapSdkError(apiError(400, "bad_request", "timeout exceeds the plan's maximum"), {
      action: "extend the timeout",
      sandboxId: "sb1",
    });
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as Error).message).toBe(
      "Vercel Sandbox API refused to extend the timeout (sandbox sb1): timeout exceeds the plan's maximum (HTTP 400, bad_request)",
    );
    const bare = mapSdkError(apiError(403), { action: "list sandboxes" });
    expect((bare as Error).message).toBe(
      "Vercel Sandbox API refused to list sandboxes: HTTP 403 (HTTP 403)",
    );
  });

  it("stream errors, plain errors, ClawRun errors and aborts", () => {
    const stream = mapSdkError(new StreamError("sandbox_stopped", "the session stopped", "s1"), {
      action: "run a command",
    });
    expect((stream as Error).message).toBe(
      "cannot run a command: sandbox_stopped: the session stopped",
    );
    const plain = mapSdkError(new Error("socket hang up"), { action: "stop the sandbox" });
    expect(plain).toBeInstanceOf(ProviderError);
    const own = new PathEscapeError("../x");
    expect(mapSdkError(own, { action: "write files" })).toBe(own);
    const abort = new DOMException("gave up", "AbortError");
    expect(mapSdkError(abort, { action: "create a sandbox" })).toBe(abort);
  });
});
