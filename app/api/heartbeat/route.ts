import { handleHeartbeatRequest } from "@/src/server/http/heartbeat-handler";
import { route } from "@/src/server/http/route";

export const dynamic = "force-dynamic";

export const POST = route((request, ctx) => handleHeartbeatRequest(request, ctx));
