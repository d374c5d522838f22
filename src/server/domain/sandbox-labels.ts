/**
 * Labels ClawRun puts on the sandboxes it creates: `instance` names the owner (orphans are
 * found by it); `role: "worker"` marks a short-lived worker sandbox, which the reconcile tick
 * leaves to its own TTL instead of stopping it as an orphan.
 */
export const INSTANCE_LABEL = "instance";
export const ROLE_LABEL = "role";
export const WORKER_ROLE = "worker";
