import { signOut } from "@/src/server/auth/sign-in";
import { route } from "@/src/server/http/route";

export const dynamic = "force-dynamic";

export const POST = route((request, ctx) => signOut(request, ctx));
