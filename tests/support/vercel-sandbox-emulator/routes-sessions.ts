import { z } from "zod";
import type { Handler, Router } from "./http";
import { sandboxJson, sessionJson, snapshotJson, toApiPolicy } from "./model";
import { emptyBody, extendTimeoutBody, snapshotBody, teamQuery } from "./request-schemas";
import type { EmulatedService } from "./service";

/** One session (VM run): stop, extend its timeout, change its network policy, snapshot it. */
export function sessionRoutes(
  router: Router,
  service: EmulatedService,
  guard: (h: Handler) => Handler,
): void {
  const id = (params: Record<string, string>) => params.id as string;

  router.add(
    "POST",
    "/v2/sandboxes/sessions/:id/stop",
    guard(async (ctx) => {
      ctx.query(teamQuery);
      await ctx.json(emptyBody);
      const { session, snapshot } = await service.stopSession(id(ctx.params));
      const sandbox = service.sandboxOf(session);
      ctx.send(200, "StopSessionResponse", {
        session: sessionJson(session, sandbox),
        sandbox: sandboxJson(sandbox, session),
        ...(snapshot ? { snapshot: snapshotJson(snapshot) } : {}),
      });
    }),
  );

  router.add(
    "POST",
    "/v2/sandboxes/sessions/:id/extend-timeout",
    guard(async (ctx) => {
      ctx.query(teamQuery);
      const { duration } = await ctx.json(extendTimeoutBody);
      const session = await service.extend(id(ctx.params), duration);
      ctx.send(200, "SessionResponse", {
        session: sessionJson(session, service.sandboxOf(session)),
      });
    }),
  );

  router.add(
    "POST",
    "/v2/sandboxes/sessions/:id/network-policy",
    guard(async (ctx) => {
      ctx.query(teamQuery);
      const policy = toApiPolicy(await ctx.json(z.unknown()));
      const session = service.setPolicy(id(ctx.params), policy);
      ctx.send(200, "SessionResponse", {
        session: sessionJson(session, service.sandboxOf(session)),
      });
    }),
  );

  router.add(
    "POST",
    "/v2/sandboxes/sessions/:id/snapshot",
    guard(async (ctx) => {
      ctx.query(teamQuery);
      const { expiration } = await ctx.json(snapshotBody);
      const { session, snapshot } = await service.snapshotSession(id(ctx.params), expiration);
      ctx.send(200, "CreateSnapshotResponse", {
        snapshot: snapshotJson(snapshot),
        session: sessionJson(session, service.sandboxOf(session)),
      });
    }),
  );
}
