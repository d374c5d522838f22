import { NextResponse } from "next/server";
import { clawrunConfigSchema } from "@/src/server/compose/config-schema";
import { effectiveConfig } from "@/src/server/dashboard/effective-config";
import { operatorRoute } from "@/src/server/http/operator-route";

export const dynamic = "force-dynamic";

export const GET = operatorRoute("read", async (_req, ctx) =>
  NextResponse.json({ rows: effectiveConfig(ctx.config, ctx.env, clawrunConfigSchema) }),
);
