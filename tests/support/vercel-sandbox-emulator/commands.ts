import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync } from "node:fs";
import { stat } from "node:fs/promises";
import { join, posix } from "node:path";
import { StringDecoder } from "node:string_decoder";
import type { LocalSandbox } from "../../../src/server/providers/local/local-sandbox";
import { sandboxLayout } from "../../../src/server/providers/local/sandbox-meta";
import { resolveInRoot } from "../../../src/server/providers/local/sandbox-paths";
import { PathEscapeError } from "../../../src/server/providers/types";
import { badRequest, forbidden, notFound } from "./http";
import type { RunCommandBody } from "./request-schemas";
import type { EmulatedService } from "./service";

/**
 * Commands in emulated sessions, run by the backing local sandbox. A foreground command's
 * output is kept for its log stream. A detached one runs under a tiny shell wrapper that
 * records its exit code in a file (the local provider does not keep exit codes of detached
 * processes); its output is the local provider's log files, read as they grow.
 */

export interface EmuCommand {
  id: string;
  sessionId: string;
  name: string;
  args: string[];
  cwd: string;
  startedAt: number;
  exitCode: number | null;
  durationMs?: number;
  output?: { stdout: string; stderr: string };
  detached?: { pid: number | null; exitFile: string; stdout: string; stderr: string };
}

/**
 * `sh -c WRAPPER clawrun-cmd <exit file> <cmd> <args...>`: runs the command, then records $?.
 * The no-op traps keep the wrapper alive through a signal sent to the whole group (kill), so
 * the command's own exit status (e.g. 143 after SIGTERM) is still recorded; a handled (not
 * ignored) signal is reset to its default in the command itself.
 */
const WRAPPER = 'trap : TERM INT HUP; f=$1; shift; "$@"; echo $? > "$f.tmp" && mv "$f.tmp" "$f"';
const POLL_MS = 50;

export type LogLine =
  | { stream: "stdout" | "stderr"; data: string }
  | { stream: "error"; data: { code: string; message: string } };

export class CommandRunner {
  private readonly commands = new Map<string, EmuCommand>();
  private readonly exitDir: string;

  constructor(
    private readonly service: EmulatedService,
    workDir: string,
  ) {
    this.exitDir = join(workDir, "exit-codes");
    mkdirSync(this.exitDir, { recursive: true });
  }

  command(sessionId: string, id: string): EmuCommand {
    const cmd = this.commands.get(id);
    if (!cmd || cmd.sessionId !== sessionId) throw notFound(`command ${id}`);
    this.settle(cmd);
    return cmd;
  }

  /** Where and with what environment it runs; a bad cwd is refused before anything starts. */
  private async spec(sessionId: string, body: RunCommandBody, local: LocalSandbox) {
    if (body.sudo) throw badRequest("emulator: sudo is not emulated");
    const session = this.service.session(sessionId);
    const sandbox = this.service.sandboxOf(session);
    const cwd = posix.resolve(session.cwd, body.cwd ?? ".");
    const real = await resolveInRoot(local.root, cwd).catch((err: unknown) => {
      throw err instanceof PathEscapeError ? forbidden(err.message) : err;
    });
    const isDir = await stat(real).then(
      (st) => st.isDirectory(),
      () => false,
    );
    if (!isDir) throw badRequest(`cwd ${cwd} is not a directory`);
    return { cwd, env: { ...sandbox.env, ...body.env } };
  }

  /** Runs to completion; `onStarted` gets the record first (the wait stream's first line). */
  async runForeground(
    sessionId: string,
    body: RunCommandBody,
    onStarted: (c: EmuCommand) => void,
  ): Promise<EmuCommand> {
    const { local } = await this.service.running(sessionId);
    const { cwd, env } = await this.spec(sessionId, body, local);
    const cmd: EmuCommand = {
      id: `cmd_${randomBytes(8).toString("hex")}`,
      sessionId,
      name: body.command,
      args: body.args,
      cwd,
      startedAt: Date.now(),
      exitCode: null,
    };
    this.commands.set(cmd.id, cmd);
    onStarted(cmd);
    const done = await local.runCommand({ cmd: body.command, args: body.args, cwd, env });
    cmd.exitCode = done.exitCode;
    cmd.durationMs = Date.now() - cmd.startedAt;
    cmd.output = { stdout: done.stdout, stderr: done.stderr };
    return cmd;
  }

  async startDetached(sessionId: string, body: RunCommandBody): Promise<EmuCommand> {
    const { local, session } = await this.service.running(sessionId);
    const { cwd, env } = await this.spec(sessionId, body, local);
    const exitFile = join(this.exitDir, randomBytes(8).toString("hex"));
    const started = await local.runCommand({
      cmd: "sh",
      args: ["-c", WRAPPER, "clawrun-cmd", exitFile, body.command, ...body.args],
      cwd,
      env,
      detached: true,
    });
    const logs = sandboxLayout(join(this.service.opts.stateDir, "sandboxes", session.id)).logs;
    const cmd: EmuCommand = {
      id: started.commandId,
      sessionId,
      name: body.command,
      args: body.args,
      cwd,
      startedAt: Date.now(),
      exitCode: null,
      detached: {
        pid: started.pid,
        exitFile,
        stdout: join(logs, `${started.commandId}.out`),
        stderr: join(logs, `${started.commandId}.err`),
      },
    };
    this.commands.set(cmd.id, cmd);
    return cmd;
  }

  /** Picks up a detached command's exit code once its wrapper wrote it. */
  private settle(cmd: EmuCommand): void {
    if (cmd.exitCode !== null || !cmd.detached || !existsSync(cmd.detached.exitFile)) return;
    cmd.exitCode = Number(readFileSync(cmd.detached.exitFile, "utf8").trim());
    cmd.durationMs = Date.now() - cmd.startedAt;
  }

  /** Resolves when the command has exited; null when its session stopped first. */
  async waitFor(cmd: EmuCommand, signal: AbortSignal): Promise<EmuCommand | null> {
    for (;;) {
      this.settle(cmd);
      if (cmd.exitCode !== null) return cmd;
      if (this.service.session(cmd.sessionId).phase !== "running") return null;
      if (signal.aborted) return null;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** The command's output as log lines, following a detached one until it exits. */
  async *logs(cmd: EmuCommand, signal: AbortSignal): AsyncGenerator<LogLine> {
    if (cmd.output) {
      if (cmd.output.stdout) yield { stream: "stdout", data: cmd.output.stdout };
      if (cmd.output.stderr) yield { stream: "stderr", data: cmd.output.stderr };
      return;
    }
    const files = cmd.detached;
    if (!files) return;
    const tails = [new Tail("stdout", files.stdout), new Tail("stderr", files.stderr)];
    for (;;) {
      this.settle(cmd);
      const exited = cmd.exitCode !== null;
      const running = this.service.session(cmd.sessionId).phase === "running";
      for (const tail of tails) {
        const data = tail.read();
        if (data) yield { stream: tail.stream, data };
      }
      if (exited) return;
      if (!running) {
        yield {
          stream: "error",
          data: { code: "sandbox_stopped", message: "the session stopped" },
        };
        return;
      }
      if (signal.aborted) return;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /**
   * Signals the command's process group. A kill right after the start can land before the
   * wrapper has set its trap (the wrapper dies, no exit file) or before it has started the
   * command (the trap swallows it): so the signal is repeated until the command has exited,
   * and a wrapper that died of it is recorded as killed by that signal (128 + n, as a shell
   * reports it). Bounded: 2 s.
   */
  kill(cmd: EmuCommand, signal: number): void {
    const pid = cmd.detached?.pid;
    if (cmd.exitCode !== null || !pid) return;
    const until = Date.now() + 2_000;
    const send = (): void => {
      this.settle(cmd);
      if (cmd.exitCode !== null) return;
      try {
        process.kill(-pid, signal); // the wrapper leads the command's process group
      } catch {
        // The whole group is gone without an exit file: the wrapper died of the signal.
        cmd.exitCode = 128 + signal;
        cmd.durationMs = Date.now() - cmd.startedAt;
        return;
      }
      if (Date.now() < until) setTimeout(send, POLL_MS).unref();
    };
    send();
  }
}

/** Reads what was appended to a file since the last read, as UTF-8 (split characters kept). */
class Tail {
  private offset = 0;
  private readonly decoder = new StringDecoder("utf8");

  constructor(
    readonly stream: "stdout" | "stderr",
    private readonly file: string,
  ) {}

  read(): string {
    if (!existsSync(this.file)) return "";
    const fd = openSync(this.file, "r");
    try {
      const chunks: Buffer[] = [];
      const buf = Buffer.alloc(64 * 1024);
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        if (n === 0) break;
        this.offset += n;
        chunks.push(Buffer.from(buf.subarray(0, n)));
      }
      return this.decoder.write(Buffer.concat(chunks));
    } finally {
      closeSync(fd);
    }
  }
}
