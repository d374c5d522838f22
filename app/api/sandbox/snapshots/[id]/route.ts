import { NextResponse } from "next/server";
import { jsonError } from "@/src/server/http/errors";
import { operatorRoute } from "@/src/server/http/operator-route";
import { SnapshotNotFoundError } from "@/src/server/providers/types";

export const dynamic = "force-dynamic";

export const DELETE = operatorRoute<{ id: string }>("mutation", async (_req, ctx, { id }) => {
  try {
    await ctx.manager.deleteSnapshot(id);
  } catch (err) {
    if (err instanceof SnapshotNotFoundError) return jsonError(404, "not_found", err.message);
    throw err;
  }
  return NextResponse.json({ deleted: id });
});
