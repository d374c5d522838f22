import { type IncomingMessage, request, type ServerResponse } from "node:http";
import { sendJson } from "./http";
import type { EmulatedService } from "./service";

/**
 * Public sandbox URLs. On Vercel a port is reached at https://<subdomain>.vercel.run; here
 * at <emulator>/__sandbox/<subdomain>/<path>, proxied to the port the backing local sandbox
 * mapped it to. A stopped session or a closed port answers 502 (the request reaches the
 * edge, not the VM).
 */
export const SANDBOX_PREFIX = "/__sandbox/";

export function proxyToSandbox(
  req: IncomingMessage,
  res: ServerResponse,
  service: EmulatedService,
): void {
  const url = new URL(req.url ?? "/", "http://emulator");
  const match = /^\/__sandbox\/([a-z0-9-]+)(\/.*)?$/.exec(url.pathname);
  const subdomain = match?.[1];
  const session = [...service.sessions.values()].find((s) =>
    s.routes.some((r) => r.subdomain === subdomain),
  );
  const route = session?.routes.find((r) => r.subdomain === subdomain);
  if (!session || !route) {
    sendJson(res, 404, { error: { code: "not_found", message: "no such sandbox URL" } });
    return;
  }
  if (service.session(session.id).phase !== "running") {
    sendJson(res, 502, { error: { code: "sandbox_stopped", message: "sandbox is stopped" } });
    return;
  }
  const target = new URL(service.backing(session.id).domain(route.port));
  const upstream = request({
    host: target.hostname,
    port: target.port,
    method: req.method,
    path: `${match?.[2] ?? "/"}${url.search}`,
    headers: { ...req.headers, host: target.host },
  });
  upstream.on("response", (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on("error", (err) => {
    if (res.headersSent) return void res.destroy(err);
    sendJson(res, 502, { error: { code: "port_unreachable", message: err.message } });
  });
  req.pipe(upstream);
}
