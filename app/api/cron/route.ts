import { handleCronGet, handleCronPost } from "@/src/server/http/cron-handler";
import { route } from "@/src/server/http/route";

export const dynamic = "force-dynamic";
// The tick may wake the agent: the wake budget, which is also the Hobby plan's limit (300 s).
export const maxDuration = 300;

/** Vercel Cron (at most daily on Hobby) with `Authorization: Bearer <CRON_SECRET>`. */
export const GET = route((request, ctx) => handleCronGet(request, ctx));

/** A scheduled wake from QStash, verified by its signature. */
export const POST = route((request, ctx) => handleCronPost(request, ctx));
