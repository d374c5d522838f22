import type * as SandboxSdk from "@vercel/sandbox";

/**
 * @vercel/sandbox, loaded at the first provider call instead of with the server: it was the
 * largest module of a start-up (docs/architecture.md, "Start-up"), and a local deployment or
 * one that only answers webhooks from a sleeping agent's inbox never calls it.
 */
let loaded: typeof SandboxSdk | null = null;

export async function vercelSdk(): Promise<typeof SandboxSdk> {
  loaded ??= await import("@vercel/sandbox");
  return loaded;
}

/** The SDK if a call has loaded it: only a loaded SDK can have thrown its own errors. */
export function loadedVercelSdk(): typeof SandboxSdk | null {
  return loaded;
}
