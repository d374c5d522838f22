import { NextResponse } from "next/server";
import { channelCards } from "@/src/server/dashboard/channel-cards";
import { operatorRoute } from "@/src/server/http/operator-route";

export const dynamic = "force-dynamic";

/** Every configured channel: secrets present, webhook registered, last message in/out, problems. */
export const GET = operatorRoute("read", async (_req, ctx) =>
  NextResponse.json({ channels: await channelCards(ctx) }),
);
