import { operatorRoute } from "@/src/server/http/operator-route";
import { prepareLayer } from "@/src/server/operator/prepare-layer";

export const dynamic = "force-dynamic";
export const maxDuration = 300;

/** Build the agent's layer (a template snapshot on Vercel) ahead of the first start. */
export const POST = operatorRoute("mutation", async (_req, ctx) =>
  prepareLayer(ctx, { waitMs: (maxDuration - 10) * 1000 }),
);
