import type { CommandRunner, EmuCommand } from "./commands";
import { type Handler, type Router, startNdjson } from "./http";
import { getCommandQuery, killCommandBody, runCommandBody, teamQuery } from "./request-schemas";
import { sdk } from "./sdk-schemas";
import { type EmulatedService, stopped } from "./service";

/** Commands: run (waiting with an ndjson stream, or detached), get / wait, logs, kill. */
export function commandRoutes(
  router: Router,
  service: EmulatedService,
  runner: CommandRunner,
  guard: (h: Handler) => Handler,
): void {
  const json = (c: EmuCommand) => ({
    id: c.id,
    name: c.name,
    args: c.args,
    cwd: c.cwd,
    sessionId: c.sessionId,
    exitCode: c.exitCode,
    startedAt: c.startedAt,
    ...(c.durationMs !== undefined ? { durationMs: c.durationMs } : {}),
  });
  /** Each streamed line is checked with the SDK's schema for it before it is written. */
  const checked = (schema: keyof typeof sdk, line: unknown) => {
    sdk[schema].parse(line);
    return line;
  };

  router.add(
    "POST",
    "/v2/sandboxes/sessions/:id/cmd",
    guard(async (ctx) => {
      ctx.query(teamQuery);
      const body = await ctx.json(runCommandBody);
      const sessionId = ctx.params.id as string;
      if (!body.wait) {
        const cmd = await runner.startDetached(sessionId, body);
        return ctx.send(200, "CommandResponse", { command: json(cmd) });
      }
      let write: ((line: unknown) => void) | null = null;
      try {
        const done = await runner.runForeground(sessionId, body, (cmd) => {
          write = startNdjson(ctx.res);
          write(checked("CommandResponse", { command: json(cmd) }));
        });
        const out = write as unknown as (line: unknown) => void;
        if (body.logs && done.output?.stdout) {
          out(checked("LogLine", { stream: "stdout", data: done.output.stdout }));
        }
        if (body.logs && done.output?.stderr) {
          out(checked("LogLine", { stream: "stderr", data: done.output.stderr }));
        }
        out(checked("CommandFinishedResponse", { command: json(done) }));
        ctx.res.end();
      } catch (err) {
        if (!write) throw err;
        // Once streaming, a failure travels as the stream's error line (the SDK's StreamError).
        const message = err instanceof Error ? err.message : String(err);
        (write as (line: unknown) => void)({
          stream: "error",
          data: { code: "command_failed", message },
        });
        ctx.res.end();
      }
    }),
  );

  router.add(
    "GET",
    "/v2/sandboxes/sessions/:id/cmd/:cmdId",
    guard(async (ctx) => {
      const q = ctx.query(getCommandQuery);
      const cmd = runner.command(ctx.params.id as string, ctx.params.cmdId as string);
      if (q.wait !== "true") return ctx.send(200, "CommandResponse", { command: json(cmd) });
      const aborted = new AbortController();
      ctx.res.on("close", () => aborted.abort());
      const done = await runner.waitFor(cmd, aborted.signal);
      if (!done) throw stopped(`session ${cmd.sessionId}`);
      ctx.send(200, "CommandFinishedResponse", { command: json(done) });
    }),
  );

  router.add(
    "GET",
    "/v2/sandboxes/sessions/:id/cmd/:cmdId/logs",
    guard(async (ctx) => {
      ctx.query(teamQuery);
      const cmd = runner.command(ctx.params.id as string, ctx.params.cmdId as string);
      const aborted = new AbortController();
      ctx.res.on("close", () => aborted.abort());
      const write = startNdjson(ctx.res);
      for await (const line of runner.logs(cmd, aborted.signal)) write(checked("LogLine", line));
      ctx.res.end();
    }),
  );

  router.add(
    "POST",
    "/v2/sandboxes/sessions/:id/cmd/:cmdId/kill",
    guard(async (ctx) => {
      ctx.query(teamQuery);
      const { signal } = await ctx.json(killCommandBody);
      const cmd = runner.command(ctx.params.id as string, ctx.params.cmdId as string);
      if (service.session(cmd.sessionId).phase !== "running")
        throw stopped(`session ${cmd.sessionId}`);
      runner.kill(cmd, signal);
      ctx.send(200, "CommandResponse", { command: json(cmd) });
    }),
  );
}
