/** Next.js calls this once per server process: start the local reconcile tick. */
export async function register(): Promise<void> {
  // Next's documented runtime switch; the edge runtime has no timers worth keeping.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Our Ctrl-C/SIGTERM handler replaces Next's, which exits as soon as requests are done and
  // would cut the agent's snapshot off half-way (src/server/shutdown/on-exit.ts). Next reads
  // this after instrumentation ran; the npm scripts set it too.
  process.env.NEXT_MANUAL_SIG_HANDLE = "1";
  const { installShutdown } = await import("./src/server/shutdown/on-exit");
  const { allContexts } = await import("./src/server/compose/context");
  installShutdown(allContexts);
  const { startLocalTick } = await import("./src/server/tick/local-tick");
  await startLocalTick().catch((err: unknown) => {
    console.error(`clawrun: local tick not started: ${(err as Error).message}`);
  });
}
