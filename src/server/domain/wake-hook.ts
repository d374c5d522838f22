/**
 * Wake hooks (docs/lifecycle.md, "Wake hooks"): while the agent sleeps a hook routes a
 * channel's messages to ClawRun's wake handler; while it is awake the hook is torn down so
 * messages reach the daemon. A channel whose webhook always lands on ClawRun (every built-in
 * one: ClawRun relays) needs none.
 */
export interface WakeHook {
  readonly channel: string;
  register(): Promise<void>;
  teardown(): Promise<void>;
}
