import { handleModelRoute } from "@/src/server/http/model-handler";
import { route } from "@/src/server/http/route";

export const dynamic = "force-dynamic";

/** OpenAI-compatible Chat Completions through the model gateway (docs/model-gateway.md). */
export const POST = route((request, ctx) =>
  handleModelRoute(request, ctx, "openai", "/chat/completions"),
);
