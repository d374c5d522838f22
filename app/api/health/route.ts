import { NextResponse } from "next/server";
import { checkHealth } from "@/src/server/setup/health";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  // `?live=1`: only "this deployment answers" (the setup checklist's public-URL check calls it).
  if (new URL(request.url).searchParams.get("live") === "1")
    return NextResponse.json(
      { ok: true, live: true },
      { headers: { "cache-control": "no-store" } },
    );
  const report = await checkHealth();
  return NextResponse.json(report, {
    status: report.ok ? 200 : 503,
    headers: { "cache-control": "no-store" },
  });
}
