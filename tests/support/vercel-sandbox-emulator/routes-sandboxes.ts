import { badRequest, type Handler, notFound, type Router } from "./http";
import { paginate, routesJson, sandboxJson, sessionJson, toApiPolicy } from "./model";
import {
  createSandboxBody,
  deleteSandboxQuery,
  getSandboxQuery,
  listSandboxesQuery,
  teamQuery,
} from "./request-schemas";
import type { EmulatedService } from "./service";

/** Named sandboxes: create (v2 with a runtime, v3 with an image or neither), get, list, delete. */
export function sandboxRoutes(
  router: Router,
  service: EmulatedService,
  guard: (h: Handler) => Handler,
): void {
  const inProject = (name: string, projectId: string) => {
    if (service.sandbox(name).projectId !== projectId) throw notFound(`sandbox ${name}`);
  };
  const create = (runtimeExpected: boolean): Handler =>
    guard(async (ctx) => {
      ctx.query(teamQuery);
      const body = await ctx.json(createSandboxBody);
      // The SDK picks /v2 exactly when a runtime is given (api-client createSandbox).
      if ((body.runtime !== undefined) !== runtimeExpected) {
        throw badRequest(`emulator: runtime ${runtimeExpected ? "required" : "not expected"} here`);
      }
      const policy = toApiPolicy(body.networkPolicy ?? { mode: "allow-all" });
      const { sandbox, session } = await service.createSandbox(body, policy);
      ctx.send(200, "SandboxAndSessionResponse", {
        sandbox: sandboxJson(sandbox, session),
        session: sessionJson(session, sandbox),
        routes: routesJson(session),
      });
    });
  router.add("POST", "/v2/sandboxes", create(true));
  router.add("POST", "/v3/sandboxes", create(false));

  router.add(
    "GET",
    "/v2/sandboxes",
    guard(async (ctx) => {
      const q = ctx.query(listSandboxesQuery);
      if (q.namePrefix !== undefined && q.sortBy !== "name") {
        throw badRequest("namePrefix is only valid with sortBy=name");
      }
      const [tagKey, ...rest] = q.tags?.split(":") ?? [];
      const tagValue = rest.join(":");
      const key = q.sortBy ?? "createdAt";
      const matching = [...service.sandboxes.values()]
        .filter((s) => s.projectId === q.project)
        .filter((s) => tagKey === undefined || s.tags[tagKey] === tagValue)
        .filter((s) => q.namePrefix === undefined || s.name.startsWith(q.namePrefix))
        .sort((a, b) => {
          const order = key === "name" ? a.name.localeCompare(b.name) : a[key] - b[key];
          return q.sortOrder === "asc" ? order : -order;
        });
      const { page, pagination } = paginate(matching, q.limit, q.cursor);
      ctx.send(200, "SandboxesPaginationResponse", {
        sandboxes: page.map((s) => sandboxJson(s, service.current(s))),
        pagination,
      });
    }),
  );

  router.add(
    "GET",
    "/v2/sandboxes/:name",
    guard(async (ctx) => {
      const q = ctx.query(getSandboxQuery);
      inProject(ctx.params.name as string, q.projectId);
      const { sandbox, session, resumed } = await service.getSandbox(
        ctx.params.name as string,
        q.resume === "true",
      );
      ctx.send(200, "SandboxAndSessionResponse", {
        sandbox: sandboxJson(sandbox, session),
        session: sessionJson(session, sandbox),
        routes: routesJson(session),
        resumed,
      });
    }),
  );

  router.add(
    "DELETE",
    "/v2/sandboxes/:name",
    guard(async (ctx) => {
      const q = ctx.query(deleteSandboxQuery);
      inProject(ctx.params.name as string, q.projectId);
      const { sandbox, session } = await service.deleteSandbox(
        ctx.params.name as string,
        q.deleteOrphanSnapshots === "true",
      );
      ctx.send(200, "UpdateSandboxResponse", { sandbox: sandboxJson(sandbox, session) });
    }),
  );
}
