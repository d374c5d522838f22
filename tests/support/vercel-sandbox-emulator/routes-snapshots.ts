import { type Handler, notFound, type Router } from "./http";
import { paginate, snapshotJson } from "./model";
import { listSnapshotsQuery, teamQuery } from "./request-schemas";
import type { EmulatedService } from "./service";

/** The project's snapshots: list (optionally one sandbox's), get, delete. */
export function snapshotRoutes(
  router: Router,
  service: EmulatedService,
  guard: (h: Handler) => Handler,
): void {
  router.add(
    "GET",
    "/v2/sandboxes/snapshots",
    guard(async (ctx) => {
      const q = ctx.query(listSnapshotsQuery);
      const all = service.snapshotsOf(q.name).filter((s) => s.projectId === q.project);
      const ordered = q.sortOrder === "asc" ? all.reverse() : all;
      const { page, pagination } = paginate(ordered, q.limit, q.cursor);
      ctx.send(200, "SnapshotsResponse", {
        snapshots: page.map((s) => snapshotJson(s)),
        pagination,
      });
    }),
  );

  router.add(
    "GET",
    "/v2/sandboxes/snapshots/:id",
    guard(async (ctx) => {
      ctx.query(teamQuery);
      const snap = service.liveSnapshot(ctx.params.id as string);
      if (!snap) throw notFound(`snapshot ${ctx.params.id}`);
      ctx.send(200, "SnapshotResponse", { snapshot: snapshotJson(snap) });
    }),
  );

  router.add(
    "DELETE",
    "/v2/sandboxes/snapshots/:id",
    guard(async (ctx) => {
      ctx.query(teamQuery);
      if (!service.liveSnapshot(ctx.params.id as string))
        throw notFound(`snapshot ${ctx.params.id}`);
      const snap = await service.dropSnapshot(ctx.params.id as string);
      ctx.send(200, "SnapshotResponse", { snapshot: snapshotJson(snap, "deleted") });
    }),
  );
}
