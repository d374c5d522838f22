import { createServer } from "node:http";
import type { AppContext } from "../../src/server/app-context";
import { errorResponse } from "../../src/server/http/errors";
import { handleWebhookRequest } from "../../src/server/http/webhook-handler";
import { freePort } from "./free-port";

/**
 * Serves `/api/webhooks/<channel>` on loopback with the production webhook handler and
 * error mapping (follow-up work is dropped), for platform stand-ins that call back (e.g.
 * Discord checking a new interactions endpoint). `ctx` is read per request, so the server can
 * be started first and its URL given to the app as its public URL. The e2e tests use the
 * real Next server.
 */
export async function startWebhookServer(
  ctx: () => AppContext,
): Promise<{ url: string; stop(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const name = /^\/api\/webhooks\/([^/?]+)/.exec(req.url ?? "")?.[1] ?? "";
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers,
      ...(req.method === "POST" ? { body: Buffer.concat(chunks) } : {}),
    });
    let response: Response;
    try {
      const result = await handleWebhookRequest(request, name, ctx());
      response = result instanceof Response ? result : result.response;
    } catch (err) {
      response = errorResponse(err, null);
    }
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
