/** Next.js calls this once per server process: start the local reconcile tick. */
export async function register(): Promise<void> {
  // Next's documented runtime switch; the edge runtime has no timers worth keeping.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startLocalTick } = await import("./src/server/local-tick");
  await startLocalTick().catch((err: unknown) => {
    console.error(`clawrun: local tick not started: ${(err as Error).message}`);
  });
}
