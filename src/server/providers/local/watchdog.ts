/**
 * The local sandbox's dead-man's switch: one detached process per sandbox, started by the
 * provider and bundled to build/bundles/local-watchdog.js. Usage: node local-watchdog.js <dir>
 *
 * It does not depend on the ClawRun server staying alive: everything it needs is in the
 * sandbox directory. When the deadline in meta.json passes it kills every recorded process
 * group, discards the root and marks the sandbox stopped ("expired"); it exits once the
 * sandbox is stopped. It also thaws processes left frozen by a snapshot whose taker died.
 */
import { rmSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { isSameProcessAlive, selfIdentity } from "./proc";
import { readProcessRecords, terminateGroups, thawGroups } from "./process-groups";
import {
  processIdentitySchema,
  readJson,
  type SandboxLayout,
  sandboxLayout,
  sandboxMetaSchema,
  sandboxStateSchema,
  writeJsonAtomic,
  writeState,
} from "./sandbox-meta";
import { watchdogStep } from "./sandbox-status";

function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} watchdog ${process.pid}: ${message}\n`);
}

function thawOrphanedFreeze(layout: SandboxLayout): void {
  const freeze = readJson(layout.freeze, processIdentitySchema);
  if (!freeze || isSameProcessAlive(freeze)) return;
  log(`snapshot taker ${freeze.pid} died while processes were frozen; resuming them`);
  thawGroups(readProcessRecords(layout));
  rmSync(layout.freeze, { force: true });
}

async function expire(layout: SandboxLayout, graceMs: number, reason: string): Promise<void> {
  writeState(layout, "stopping", reason);
  await terminateGroups(readProcessRecords(layout), graceMs);
  rmSync(layout.root, { recursive: true, force: true });
  rmSync(layout.freeze, { force: true });
  writeState(layout, reason === "expired" ? "stopped" : "failed", reason);
}

async function main(dir: string): Promise<void> {
  const layout = sandboxLayout(dir);
  // The handshake: the provider waits for this file before create() returns.
  writeJsonAtomic(layout.watchdog, selfIdentity());
  let graceMs = 3_000;
  for (;;) {
    try {
      const meta = readJson(layout.meta, sandboxMetaSchema);
      const state = meta && readJson(layout.state, sandboxStateSchema);
      if (meta) graceMs = meta.killGraceMs;
      const step = watchdogStep({
        persisted: state?.status ?? null,
        now: Date.now(),
        deadline: meta ? meta.createdAt + meta.timeoutMs : 0,
        pollMs: meta?.watchdogPollMs ?? 1_000,
      });
      if (step.kind === "exit") return;
      if (step.kind === "expire") {
        log("deadline passed; stopping the sandbox");
        return await expire(layout, graceMs, "expired");
      }
      thawOrphanedFreeze(layout);
      await sleep(step.ms);
    } catch (err) {
      // Fail closed: a sandbox whose deadline cannot be read must not run unguarded.
      const message = err instanceof Error ? err.message : String(err);
      log(`cannot read the sandbox state (${message}); stopping the sandbox`);
      return await expire(layout, graceMs, `watchdog error: ${message}`);
    }
  }
}

const dir = process.argv[2];
if (!dir) {
  log("usage: local-watchdog.js <sandbox dir>");
  process.exit(2);
}
main(dir).then(
  () => process.exit(0),
  (err) => {
    log(`fatal: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  },
);
