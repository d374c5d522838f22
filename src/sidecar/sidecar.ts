import { join } from "node:path";
import { BYPASS_HEADER, resolveListenHost, resolveListenPort } from "../protocol/constants";
import { DAEMON_HOST, REPLY_JOURNAL_PATH } from "../protocol/door";
import type { SidecarHealth } from "../protocol/health";
import { ActivityTracker } from "./activity-tracker";
import { ChangeSignal } from "./change-signal";
import { buildChildEnv } from "./daemon-env";
import { closeServer, createDoorServer, listen } from "./door-server";
import { daemonSpawnSpec, type EarlyDaemon, sameSpec } from "./early-daemon";
import { Heartbeat, heartbeatUrl } from "./heartbeat";
import type { LoadedConfig } from "./load-config";
import { LogFile } from "./log-file";
import { OpenDeliveries } from "./open-deliveries";
import { ownedBy, readProcTable, signalAlive } from "./process-tree";
import { ReplyJournal } from "./reply-journal";
import { readRestoredGeneration } from "./restored-generation";
import { Supervisor } from "./supervisor";
import { installTools } from "./tools";

export interface RunningSidecar {
  log: LogFile;
  /** Stops everything (daemon within its grace period), kills leftovers; never throws. */
  shutdown(reason: string): Promise<void>;
}

export function logPath(root: string): string {
  return join(root, "logs", "sidecar.log");
}

/**
 * Wires the subsystems in the order of docs/sidecar.md ("Start-up"): the door (health, logs,
 * delivery), supervisor, heartbeat (the activity tracker it reports from starts alongside),
 * then tools in the background. The daemon itself may already run (`early`, spawned by main
 * before this module loaded: docs/sidecar.md, "Start-up order").
 */
export async function startSidecar(
  loaded: LoadedConfig,
  env: Record<string, string | undefined>,
  early: EarlyDaemon | null = null,
): Promise<RunningSidecar> {
  const { config, timings, secret, bypass, daemonEnv } = loaded;
  const startedAt = Date.now();
  const log = new LogFile({
    path: logPath(config.root),
    maxBytes: timings.logMaxBytes,
    // The daemon's environment holds its secrets: a daemon that prints one must not put it in
    // a log a snapshot carries (LogFile skips values too short to be secrets).
    redact: [secret, ...(bypass ? [bypass] : []), ...Object.values(daemonEnv)],
  });
  log.info(`sidecar starting (pid ${process.pid}) for sandbox ${config.sandboxId}`);

  const healthPort = resolveListenPort(config.healthPort, env);
  const healthHost = resolveListenHost(env);
  const childEnv = buildChildEnv({ base: env, root: config.root, extra: config.daemon.env });
  const spec = daemonSpawnSpec(config.root, config.daemon, env);
  // A daemon spawned ahead of the sidecar is kept only if it is exactly the one we would spawn.
  const adopted = early && sameSpec(early.spec, spec) ? early : null;
  if (early && !adopted) {
    early.child.kill("SIGKILL");
    log.warn("the daemon spawned early does not match the validated config: spawned again");
  }
  for (const w of adopted?.warnings ?? []) log.warn(w);
  // Read before the daemon starts, so it names the save restored, not anything written since.
  const generation = adopted ? adopted.generation : readRestoredGeneration(config.root, log);

  let supervisor: Supervisor | null = null;
  let heartbeat: Heartbeat | null = null;
  let daemonReturned = false;

  // 1. The door: ClawRun polls its health as soon as the sidecar is launched. The tracker is
  // made here (started below) because a delivery through the door is activity too.
  const tracker = new ActivityTracker({
    root: config.root,
    // The journal is written by the door itself, after a delivery that already counted.
    ignore: [...config.activityIgnore, REPLY_JOURNAL_PATH],
    initial: config.sandboxCreatedAt > 0 ? config.sandboxCreatedAt : startedAt,
    fallbackScanMs: timings.activityFallbackScanMs,
    log,
  });
  const openDeliveries = new OpenDeliveries();
  const healthChange = new ChangeSignal();
  const server = createDoorServer({
    secret,
    daemon: { host: DAEMON_HOST, port: spec.port },
    logPath: logPath(config.root),
    onDelivery: () => tracker.markActivity(),
    openDeliveries,
    journal: new ReplyJournal({ path: join(config.root, REPLY_JOURNAL_PATH) }),
    getHealth: (): SidecarHealth => {
      const daemon = supervisor?.snapshot() ?? { status: "starting", pid: null, restarts: 0 };
      const beat = heartbeat?.state ?? { lastTick: null, lastSuccess: null };
      return {
        ok: daemon.status === "running",
        daemon,
        heartbeat: beat,
        uptime: Math.floor((Date.now() - startedAt) / 1000),
        generation,
      };
    },
    healthChanged: (ms) => healthChange.wait(ms),
  });
  try {
    await listen(server, healthPort, healthHost);
  } catch (err) {
    adopted?.child.kill("SIGKILL");
    log.error(`door cannot listen on ${healthHost}:${healthPort}: ${(err as Error).message}`);
    log.close();
    throw err;
  }
  log.info(`door (health, logs, delivery) on ${healthHost}:${healthPort}`);

  // 2. Supervisor.
  supervisor = new Supervisor({
    command: spec.command,
    args: spec.args,
    env: spec.env,
    cwd: spec.cwd,
    port: spec.port,
    timings,
    log,
    onStatusChange: (status) => {
      log.info(`daemon status: ${status}`);
      healthChange.notify(); // a held GET /health answers now
      // Back after a restart: say so until the parent has heard it, so deliveries that found
      // the daemon unreachable resume at once (docs/sidecar.md, "Heartbeat").
      if (status === "running" && (supervisor?.snapshot().restarts ?? 0) > 0) daemonReturned = true;
      if (status !== "running") daemonReturned = false;
      // ClawRun acts on status (a failed daemon stops the sandbox: docs/sidecar.md), so tell it now.
      if (status !== "stopped") void heartbeat?.trigger();
    },
  });
  supervisor.start(adopted ?? undefined);

  // 3. Heartbeat, with the activity it reports.
  void tracker.start();
  const sup = supervisor;
  heartbeat = new Heartbeat({
    url: heartbeatUrl(config.parentUrl),
    secret,
    ...(bypass ? { extraHeaders: { [BYPASS_HEADER]: bypass } } : {}),
    intervalMs: timings.heartbeatIntervalMs,
    timeoutMs: timings.heartbeatTimeoutMs,
    log,
    body: () => {
      const daemon = sup.snapshot();
      return {
        sandboxId: config.sandboxId,
        lastChangedAt: tracker.lastChangedAt,
        sandboxCreatedAt: config.sandboxCreatedAt,
        root: config.root,
        daemonStatus: daemon.status,
        daemonRestarts: daemon.restarts,
        generation,
        ...(daemonReturned ? { daemonReturned: true } : {}),
        ...openDeliveryField(openDeliveries.oldestSince()),
      };
    },
    onAccepted: (sent) => {
      if (sent.daemonReturned) daemonReturned = false;
    },
  });
  void heartbeat.start();

  // 4. Tools, fire-and-forget: the daemon never waits for them.
  const toolsAbort = new AbortController();
  if (config.tools.length > 0) {
    installTools({
      tools: config.tools,
      cwd: config.root,
      env: childEnv,
      attempts: timings.toolAttempts,
      retryDelayMs: timings.toolRetryDelayMs,
      log,
      signal: toolsAbort.signal,
    }).catch((err) => log.error(`tools: ${(err as Error).message}`));
  }

  let done: Promise<void> | null = null;
  const hb = heartbeat;
  const shutdown = (reason: string): Promise<void> => {
    done ??= (async () => {
      log.info(`shutting down: ${reason}`);
      hb.stop();
      tracker.stop();
      toolsAbort.abort();
      await sup.stop();
      // Anything still ours (tool installs, orphans of earlier daemon crashes) goes too.
      const table = readProcTable();
      const leftovers = table ? signalAlive(ownedBy(process.pid, table), "SIGKILL") : 0;
      if (leftovers > 0) log.warn(`killed ${leftovers} leftover process(es)`);
      await closeServer(server);
      log.info("sidecar stopped");
      log.close();
    })();
    return done;
  };
  return { log, shutdown };
}

/** Only while a delivery is open, so an idle heartbeat keeps the seed's fields. */
function openDeliveryField(since: number | null): { openDeliverySince?: number } {
  return since === null ? {} : { openDeliverySince: since };
}
