import { route } from "@/src/server/http/route";
import { signOut } from "@/src/server/http/sign-in";

export const dynamic = "force-dynamic";

export const POST = route((request, ctx) => signOut(request, ctx.deployment));
