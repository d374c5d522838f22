import { route } from "@/src/server/http/route";
import { signIn } from "@/src/server/http/sign-in";

export const dynamic = "force-dynamic";

export const POST = route((request, ctx) => signIn(request, ctx.deployment));
