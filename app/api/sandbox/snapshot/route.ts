import { operatorRoute } from "@/src/server/http/operator-route";
import { snapshotAction } from "@/src/server/operator/actions";

export const dynamic = "force-dynamic";
export const maxDuration = 300;

/** Snapshot now (the agent keeps running). */
export const POST = operatorRoute("mutation", async (_req, ctx) => snapshotAction(ctx));
