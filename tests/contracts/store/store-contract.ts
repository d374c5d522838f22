import { afterAll, afterEach, beforeAll, describe } from "vitest";
import type { Store, StoreOptions } from "../../../src/server/store/types";
import { faultsContract } from "./faults";
import { inboxContract } from "./inbox";
import { freshInstance, type StoreHarness } from "./kit";
import { logsContract } from "./logs";
import { stateContract } from "./state";
import { usageContract } from "./usage";

/** What each contract section gets: stores on fresh instances, closed after every test. */
export interface ContractContext {
  open(label: string, opts?: Omit<StoreOptions, "instance">): { store: Store; instance: string };
  /** Another Store object (own connection) on an existing instance. */
  reopen(instance: string, opts?: Omit<StoreOptions, "instance">): Store;
  harness(): StoreHarness;
}

/**
 * The one contract every Store adapter must pass (DESIGN: contract suites). Each adapter's
 * test file supplies a harness over a real backend: a sqlite file, a throwaway redis-server.
 */
export function describeStoreContract(
  name: string,
  setup: () => Promise<{ harness: StoreHarness; teardown(): Promise<void> }>,
): void {
  describe(`Store contract: ${name}`, () => {
    let harness: StoreHarness | undefined;
    let teardown: (() => Promise<void>) | undefined;
    const opened: Store[] = [];

    beforeAll(async () => {
      ({ harness, teardown } = await setup());
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });
    afterAll(async () => {
      await teardown?.();
    });

    const ctx: ContractContext = {
      harness: () => {
        if (!harness) throw new Error("contract harness is not set up");
        return harness;
      },
      reopen: (instance, opts) => {
        const store = ctx.harness().open(instance, opts);
        opened.push(store);
        return store;
      },
      open: (label, opts) => {
        const instance = freshInstance(label);
        return { store: ctx.reopen(instance, opts), instance };
      },
    };

    stateContract(ctx);
    logsContract(ctx);
    inboxContract(ctx, "inbox");
    inboxContract(ctx, "outbox");
    usageContract(ctx);
    faultsContract(ctx);
  });
}
