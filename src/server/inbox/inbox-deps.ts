import type { Logger } from "pino";
import type { Agent } from "../agents/types";
import type { Channel } from "../channels/types";
import type { SandboxProvider } from "../providers/types";
import type { Store } from "../store/types";

/** What delivering messages and sending replies work through (built by the composition root). */
export interface DrainDeps {
  store: Pick<Store, "state" | "inbox" | "outbox" | "events" | "deliveries">;
  provider: SandboxProvider;
  agent: Agent;
  channels: ReadonlyMap<string, Channel>;
  logger: Logger;
  clock: () => number;
  timings: { deliveryMaxAttempts: number; deliveryRetryBaseMs: number; claimMarginMs: number };
  /** CLAWRUN_SECRET: each sandbox's door key is derived from it (deliveries are signed). */
  masterSecret: string;
}
