import { signOut } from "@/src/server/auth/sign-in";
import { getContext } from "@/src/server/context";
import { errorResponse } from "@/src/server/http/errors";

export const dynamic = "force-dynamic";

export async function POST(request: Request) {
  const ctx = await getContext().catch((err: unknown) => err as Error);
  if (ctx instanceof Error) return errorResponse(ctx, null);
  return signOut(request, ctx);
}
