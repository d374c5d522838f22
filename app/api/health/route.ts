import { NextResponse } from "next/server";
import { checkHealth } from "@/src/server/health";

export const dynamic = "force-dynamic";

export async function GET() {
  const report = await checkHealth();
  return NextResponse.json(report, {
    status: report.ok ? 200 : 503,
    headers: { "cache-control": "no-store" },
  });
}
