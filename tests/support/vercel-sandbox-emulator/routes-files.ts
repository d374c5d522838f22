import { mkdir } from "node:fs/promises";
import { posix } from "node:path";
import { gunzipSync } from "node:zlib";
import { resolveInRoot } from "../../../src/server/providers/local/sandbox-paths";
import { PathEscapeError } from "../../../src/server/providers/types";
import { badRequest, forbidden, type Handler, type Router } from "./http";
import { fsPathBody, teamQuery } from "./request-schemas";
import type { EmulatedService } from "./service";
import { readTar } from "./tar-reader";

/**
 * Files: write (a gzipped tar, entries relative to the `x-cwd` header), read (raw bytes,
 * 404 when missing), mkdir. The backing local sandbox refuses anything outside its
 * directory; the emulator answers that as the API's 403.
 */
export function fileRoutes(
  router: Router,
  service: EmulatedService,
  guard: (h: Handler) => Handler,
): void {
  const refuseEscape = (err: unknown) => {
    throw err instanceof PathEscapeError ? forbidden(err.message) : err;
  };

  router.add(
    "POST",
    "/v2/sandboxes/sessions/:id/fs/write",
    guard(async (ctx) => {
      ctx.query(teamQuery);
      if (ctx.req.headers["content-type"] !== "application/gzip") {
        ctx.unknown(
          `content-type ${ctx.req.headers["content-type"]} (the SDK sends application/gzip)`,
        );
      }
      const base = ctx.req.headers["x-cwd"];
      if (typeof base !== "string" || !posix.isAbsolute(base)) ctx.unknown("missing x-cwd header");
      const { local } = await service.running(ctx.params.id as string);
      let entries: ReturnType<typeof readTar>;
      try {
        entries = readTar(gunzipSync(await ctx.body()));
      } catch (err) {
        throw badRequest(`not a gzipped tar: ${err instanceof Error ? err.message : err}`);
      }
      for (const entry of entries) {
        const path = posix.join(base as string, entry.name);
        if (entry.type === "directory") {
          await mkdir(await resolveInRoot(local.root, path).catch(refuseEscape), {
            recursive: true,
          });
        } else if (entry.type === "file") {
          await local
            .writeFiles([{ path, content: entry.content, mode: entry.mode & 0o7777 }])
            .catch(refuseEscape);
        } else {
          throw badRequest(`emulator: tar entry ${entry.name} is neither a file nor a directory`);
        }
      }
      ctx.send(200, "EmptyResponse", {});
    }),
  );

  router.add(
    "POST",
    "/v2/sandboxes/sessions/:id/fs/read",
    guard(async (ctx) => {
      ctx.query(teamQuery);
      const { path, cwd } = await ctx.json(fsPathBody);
      const { session, local } = await service.running(ctx.params.id as string);
      const content = await local
        .readFile(posix.resolve(cwd ?? session.cwd, path))
        .catch(refuseEscape);
      if (content === null) {
        ctx.res.writeHead(404, { "content-type": "application/json" });
        ctx.res.end(
          JSON.stringify({ error: { code: "file_not_found", message: `${path} not found` } }),
        );
        return;
      }
      ctx.res.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": content.length,
      });
      ctx.res.end(content);
    }),
  );

  router.add(
    "POST",
    "/v2/sandboxes/sessions/:id/fs/mkdir",
    guard(async (ctx) => {
      ctx.query(teamQuery);
      const { path, cwd } = await ctx.json(fsPathBody);
      const { session, local } = await service.running(ctx.params.id as string);
      const absolute = posix.resolve(cwd ?? session.cwd, path);
      const target = await resolveInRoot(local.root, absolute).catch(refuseEscape);
      await mkdir(target);
      ctx.send(200, "EmptyResponse", {});
    }),
  );
}
