import { type ManagedSandbox, SandboxNotFoundError } from "../providers/types";
import type { LifecycleDeps } from "./deps";

/** The provider's sandbox by id, or null when it no longer exists. */
export async function findSandbox(
  d: Pick<LifecycleDeps, "provider">,
  id: string,
): Promise<ManagedSandbox | null> {
  try {
    return await d.provider.get(id);
  } catch (err) {
    if (err instanceof SandboxNotFoundError) return null;
    throw err;
  }
}
