import { handleModelList } from "@/src/server/http/model-handler";
import { route } from "@/src/server/http/route";

export const dynamic = "force-dynamic";

/** The agent's model, in OpenAI's model-list shape (docs/model-gateway.md). */
export const GET = route((request, ctx) => handleModelList(request, ctx));
