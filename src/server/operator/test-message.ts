import { randomBytes } from "node:crypto";
import { z } from "zod";
import { signatureHeaders } from "../../protocol/signing";
import type { AppContext } from "../app-context";
import type { RouteResult } from "../http/route";
import { handleWebhookRequest } from "../http/webhook-handler";

export const testMessageBodySchema = z.strictObject({
  text: z.string().min(1).max(500).optional(),
});

/** The conversation test messages use, so they never mix with a real one. */
export const TEST_CONVERSATION = "dashboard-test";

/**
 * The getting-started card's "send a test message": a generic-webhook message signed with
 * CLAWRUN_WEBHOOK_SECRET, through the very handler a platform reaches (inbox, dedupe, wake),
 * so a working test proves the whole path. The secret never leaves the server.
 */
export function sendTestMessage(
  ctx: Pick<AppContext, "channels" | "clock" | "env" | "logger" | "manager" | "secrets" | "store">,
  body: z.infer<typeof testMessageBodySchema>,
): Promise<RouteResult> {
  const raw = JSON.stringify({
    id: `test-${Date.now()}-${randomBytes(3).toString("hex")}`,
    conversation: TEST_CONVERSATION,
    text: body.text ?? "Hello from the ClawRun dashboard",
  });
  const base = ctx.env.publicUrl ?? "http://localhost";
  const request = new Request(new URL("/api/webhooks/generic", base), {
    method: "POST",
    body: raw,
    headers: {
      "content-type": "application/json",
      ...signatureHeaders(ctx.secrets.secrets.CLAWRUN_WEBHOOK_SECRET, raw),
    },
  });
  return handleWebhookRequest(request, "generic", ctx);
}
