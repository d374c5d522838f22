import { operatorRoute } from "@/src/server/http/operator-route";
import { stopAction } from "@/src/server/operator/actions";

export const dynamic = "force-dynamic";
export const maxDuration = 300;

/** Snapshot + stop. */
export const POST = operatorRoute("mutation", async (_req, ctx) => stopAction(ctx));
