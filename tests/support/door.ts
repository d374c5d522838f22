import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { SidecarHealth } from "../../src/protocol/health";
import { SidecarClient } from "../../src/server/door/sidecar-client";
import { closeServer, createDoorServer, listen } from "../../src/sidecar/door-server";
import type { OpenDeliveries } from "../../src/sidecar/open-deliveries";
import type { ReplyJournal } from "../../src/sidecar/reply-journal";

export const TEST_DOOR_SECRET = "door-secret-for-tests-0123456789";

const HEALTH: SidecarHealth = {
  ok: true,
  daemon: { status: "running", pid: 1, restarts: 0 },
  heartbeat: { lastTick: null, lastSuccess: null },
  uptime: 1,
};

export interface TestDoor {
  /** ClawRun's client, signing with TEST_DOOR_SECRET. */
  client: SidecarClient;
  /** The door's base URL (for unsigned or forged requests). */
  url: string;
  server: Server;
  deliveries: number;
  logDir: string;
  close(): Promise<void>;
}

/**
 * The sidecar's real door (src/sidecar/door-server.ts), in this process, in front of a daemon
 * at `daemonUrl` (http://127.0.0.1:<port>), with ClawRun's real client pointed at it: so agent
 * adapters are tested over the very path they use in a sandbox.
 */
export async function startTestDoor(
  daemonUrl: string,
  opts: {
    health?: () => SidecarHealth;
    /** Lets `GET /health?wait=` hold its answer (the sidecar passes its ChangeSignal). */
    healthChanged?: (ms: number) => Promise<void>;
    maxBodyBytes?: number;
    logPath?: string;
    journal?: ReplyJournal;
    openDeliveries?: OpenDeliveries;
  } = {},
): Promise<TestDoor> {
  const daemon = new URL(daemonUrl);
  const logDir = mkdtempSync(join(tmpdir(), "clawrun-door-"));
  const door: TestDoor = {
    client: undefined as unknown as SidecarClient,
    url: "",
    server: undefined as unknown as Server,
    deliveries: 0,
    logDir,
    close: async () => {
      await closeServer(door.server);
      rmSync(logDir, { recursive: true, force: true });
    },
  };
  door.server = createDoorServer({
    secret: TEST_DOOR_SECRET,
    getHealth: opts.health ?? (() => HEALTH),
    daemon: { host: daemon.hostname, port: Number(daemon.port) },
    logPath: opts.logPath ?? join(logDir, "sidecar.log"),
    onDelivery: () => {
      door.deliveries++;
    },
    maxBodyBytes: opts.maxBodyBytes,
    ...(opts.healthChanged ? { healthChanged: opts.healthChanged } : {}),
    ...(opts.journal ? { journal: opts.journal } : {}),
    ...(opts.openDeliveries ? { openDeliveries: opts.openDeliveries } : {}),
  });
  await listen(door.server, 0, "127.0.0.1");
  door.url = `http://127.0.0.1:${(door.server.address() as AddressInfo).port}`;
  door.client = new SidecarClient(
    { id: "sbx_door_test", domain: () => door.url },
    TEST_DOOR_SECRET,
  );
  return door;
}

/** Doors opened by a test file, closed after each test. */
export function doorsForTests(): { to(daemonUrl: string): Promise<SidecarClient> } {
  const open: TestDoor[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((d) => d.close()));
  });
  return {
    async to(daemonUrl) {
      const door = await startTestDoor(daemonUrl);
      open.push(door);
      return door.client;
    },
  };
}
