/**
 * An agent's own webhooks (docs/several-agents.md): the same handler as
 * /api/webhooks/<channel>, for the agent named by the last segment (src/server/http/route.ts).
 */
export { GET, POST } from "../route";

export const dynamic = "force-dynamic";
export const maxDuration = 300;
