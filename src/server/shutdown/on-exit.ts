import type { AppContext } from "../app-context";
import type { SleepOutcome } from "../sandbox/sleep";
import { stopLocalTick } from "../tick/local-tick";
import { planShutdown } from "./plan";

const KEY = Symbol.for("clawrun.shutdown");
/** Repeats within this are the same Ctrl-C (the shell's and `next dev`'s both reach us). */
const SAME_PRESS_MS = 1_000;

/** To the terminal the operator pressed Ctrl-C in, whatever the log level. */
function say(line: string): void {
  console.error(`clawrun: ${line}`);
}

/**
 * Ctrl-C / SIGTERM of a server that runs its own tick (docs/lifecycle.md, "When the server
 * stops"): the agent is snapshotted and stopped (bounded), or the operator is told what keeps
 * running and until when; then the process exits. Next's own handler is off
 * (NEXT_MANUAL_SIG_HANDLE, set by instrumentation.ts and the npm scripts) because it exits as
 * soon as requests are done, which would cut a snapshot off half-way. A second Ctrl-C exits at
 * once. The server's entry (instrumentation.ts) passes how to get its context.
 */
export function installShutdown(
  contextsOf: () => Promise<Pick<AppContext, "agentName" | "env" | "manager">[]>,
): void {
  const holder = globalThis as { [KEY]?: true };
  if (holder[KEY]) return; // dev reloads re-run instrumentation
  holder[KEY] = true;
  let first = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    const code = signal === "SIGINT" ? 130 : 143;
    if (first > 0) {
      if (Date.now() - first < SAME_PRESS_MS) return;
      say(`${signal} again: exiting now; what was still running keeps running until its timeout`);
      process.exit(code);
    }
    first = Date.now();
    void shutDown(signal, contextsOf).finally(() => process.exit(code));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

async function shutDown(
  signal: NodeJS.Signals,
  contextsOf: () => Promise<Pick<AppContext, "agentName" | "env" | "manager">[]>,
): Promise<void> {
  let contexts: Pick<AppContext, "agentName" | "env" | "manager">[];
  try {
    contexts = await withBound(contextsOf(), 5_000, "the server's context");
  } catch (err) {
    say(`${(err as Error).message}; the agent may keep running until its sandbox's timeout`);
    return;
  }
  // Only a server that runs the lifecycle itself owns the agents' sleep; elsewhere (Vercel's
  // functions, a CLAWRUN_LOCAL_TICK=0 replica) requests and heartbeats do.
  if (!contexts[0]?.env.localTick) return;
  stopLocalTick();
  // Each agent in parallel: one slow snapshot does not hold the others' past the bound.
  const named = contexts.length > 1;
  await Promise.all(
    contexts.map((ctx) => sleepOne(signal, ctx, named ? `${ctx.agentName}: ` : "")),
  );
}

async function sleepOne(
  signal: NodeJS.Signals,
  ctx: Pick<AppContext, "env" | "manager">,
  who: string,
): Promise<void> {
  try {
    const state = (await ctx.manager.getState()).value;
    const plan = planShutdown({ state, onExit: ctx.env.onExit, now: Date.now() });
    say(`${who}${signal}: ${plan.say}`);
    if (plan.kind !== "sleep") return;
    const started = Date.now();
    const outcome = await withBound(
      ctx.manager.sleep(`server stopping (${signal})`, state.sandboxId, false),
      plan.boundMs,
      "the snapshot + stop",
    );
    say(`${who}${describe(outcome, Date.now() - started)}`);
  } catch (err) {
    say(`${who}${(err as Error).message}; the agent may keep running until its sandbox's timeout`);
  }
}

function describe(o: SleepOutcome | { status: "busy" }, ms: number): string {
  const took = `${(ms / 1000).toFixed(1)} s`;
  switch (o.status) {
    case "sleeping":
      return `the agent is asleep (snapshot ${o.snapshotId ?? "kept in the stopped sandbox"}, ${took}); a message or the next start wakes it`;
    case "kept-running":
      return `the snapshot failed (${o.error}): the sandbox keeps running so nothing is lost`;
    case "skipped":
      return `nothing to put to sleep (${o.reason})`;
    case "busy":
      return "another lifecycle operation holds the lock: the agent keeps running until it ends or its timeout";
  }
}

function withBound<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
