import { NextResponse } from "next/server";
import { operatorRoute } from "@/src/server/http/operator-route";
import { sidecarLogTail } from "@/src/server/operator/logs";

export const dynamic = "force-dynamic";

export const GET = operatorRoute("read", async (_req, ctx) =>
  NextResponse.json(await sidecarLogTail(ctx)),
);
