import { expect, it } from "vitest";
import { StoreUnavailableError } from "../server/store/types";
import { ClawrunError } from "./clawrun-error";

it("recognises an error from another copy of the class (another route bundle) by its brand and name", () => {
  // What a second route bundle's copy of the class looks like: same declared name, other prototype.
  class StoreUnavailableErrorCopy extends ClawrunError {
    static override readonly errorName = "StoreUnavailableError";
  }
  const copy = new StoreUnavailableErrorCopy("store_unavailable", "x", { status: 503 });
  expect(copy instanceof StoreUnavailableError).toBe(true);
  expect(new StoreUnavailableError("x") instanceof StoreUnavailableError).toBe(true);
  expect(new Error("x") instanceof StoreUnavailableError).toBe(false);
  expect({ name: "StoreUnavailableError" } instanceof StoreUnavailableError).toBe(false);
});

it("keeps code, status, headers and cause, and subclasses are ClawrunErrors but not each other", () => {
  const cause = new Error("socket closed");
  const err = new StoreUnavailableError("redis is down", cause);
  expect(err).toMatchObject({ code: "store_unavailable", status: 503, message: "redis is down" });
  expect(err.headers).toEqual({ "retry-after": "5" });
  expect(err.cause).toBe(cause);
  expect(err.name).toBe("StoreUnavailableError");
  expect(err instanceof ClawrunError).toBe(true);
  expect(err instanceof Error).toBe(true);
  class Other extends ClawrunError {
    static override readonly errorName = "Other";
  }
  expect(err instanceof Other).toBe(false);
  expect(new ClawrunError("x", "plain").status).toBe(500);
});
