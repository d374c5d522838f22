import { expect, it } from "vitest";
import { StoreUnavailableError } from "../server/store/types";

it("recognises an error from another copy of the class (another route bundle) by its name", () => {
  class StoreUnavailableErrorCopy extends Error {
    override name = "StoreUnavailableError";
  }
  expect(new StoreUnavailableErrorCopy("x") instanceof StoreUnavailableError).toBe(true);
  expect(new StoreUnavailableError("x") instanceof StoreUnavailableError).toBe(true);
  expect(new Error("x") instanceof StoreUnavailableError).toBe(false);
  expect({ name: "StoreUnavailableError" } instanceof StoreUnavailableError).toBe(false);
});
