import { SANDBOX_PORTS } from "../../protocol/constants";
import { heartbeatSecret } from "../../protocol/derive-key";
import { DOOR_ERROR_HEADER, DOOR_ERRORS, DOOR_ROUTES } from "../../protocol/door";
import {
  type GatewayRpcAnswer,
  type GatewayRpcRequest,
  parseGatewayRpcAnswer,
} from "../../protocol/gateway-rpc";
import { parseSidecarHealth, type SidecarHealth } from "../../protocol/health";
import { doorSignatureHeaders } from "../../protocol/signing";
import type { DaemonRequestInit, DaemonTransport } from "../agents/types";
import type { ManagedSandbox } from "../providers/types";

/**
 * The door could not be passed: nobody answered at the sidecar's port, the door refused the
 * request (401: a signature problem), or it found nothing listening on the daemon's loopback
 * port (502 `daemon_unreachable`). Never the daemon's own answer. Agents turn it into
 * AgentUnreachableError: a fact about the sandbox, not a verdict on a message.
 */
export class DoorUnreachableError extends Error {
  override name = "DoorUnreachableError";
  constructor(
    message: string,
    /** The door's error code when it answered (e.g. "daemon_unreachable"); null when nobody did. */
    readonly code: string | null,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

/** Door answers that mean "not through": everything else is passed to the caller as it came. */
const NOT_THROUGH: readonly string[] = [DOOR_ERRORS.unauthorized, DOOR_ERRORS.daemonUnreachable];

/**
 * ClawRun's one way into a sandbox (docs/sidecar.md, "The door"): every request goes to the
 * sidecar's exposed port, signed with the sandbox's secret over method, path and body.
 * Health probes, log reads, deliveries, readiness and cron reports all go through here; the
 * daemon's own port is never exposed nor called.
 */
export class SidecarClient implements DaemonTransport {
  readonly label: string;
  readonly sandboxId: string;

  constructor(
    private readonly sandbox: Pick<ManagedSandbox, "id" | "domain">,
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {
    this.label = `sandbox ${sandbox.id}'s daemon (through its door)`;
    this.sandboxId = sandbox.id;
  }

  /** A signed request to the door; rejects only when nobody answered at the sidecar's port. */
  async request(path: string, init: DaemonRequestInit = {}): Promise<Response> {
    const method = (init.method ?? "GET").toUpperCase();
    const body = init.body ?? "";
    const base = this.sandbox.domain(SANDBOX_PORTS.sidecar);
    try {
      return await fetch(`${base}${path}`, {
        method,
        headers: {
          ...init.headers,
          ...doorSignatureHeaders(this.secret, method, path, body, this.now()),
        },
        body: method === "GET" || method === "HEAD" ? undefined : body,
        signal: init.signal,
      });
    } catch (err) {
      if (init.signal?.aborted) throw err;
      throw new DoorUnreachableError(
        `sandbox ${this.sandbox.id}'s sidecar did not answer: ${describe(err)}`,
        null,
        err,
      );
    }
  }

  /** DaemonTransport: `path` on the daemon, through the door's `/daemon` route. */
  fetch(path: string, init: DaemonRequestInit = {}): Promise<Response> {
    return this.toDaemon(DOOR_ROUTES.daemonPrefix, path, init);
  }

  /**
   * The same daemon through the door's `/control` route: for ClawRun's own calls (the agent's
   * consent to sleep, its resume), which the sidecar never counts as the agent's activity.
   */
  control(): DaemonTransport {
    return {
      label: this.label,
      sandboxId: this.sandboxId,
      fetch: (path, init) => this.toDaemon(DOOR_ROUTES.controlPrefix, path, init),
      gatewayRpc: (call, signal) => this.gatewayRpc(call, signal),
    };
  }

  /** DaemonTransport: `POST /gateway-rpc`, one call over the daemon's WebSocket. */
  async gatewayRpc(call: GatewayRpcRequest, signal?: AbortSignal): Promise<GatewayRpcAnswer> {
    const res = await this.request(DOOR_ROUTES.gatewayRpc, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(call),
      ...(signal ? { signal } : {}),
    });
    const text = await res.text();
    const code = res.headers.get(DOOR_ERROR_HEADER);
    if (code !== null) {
      const message = `sandbox ${this.sandbox.id}'s door answered ${res.status} ${code}: ${errorMessage(text)}`;
      if (NOT_THROUGH.includes(code)) throw new DoorUnreachableError(message, code);
      throw new Error(message);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const parsed = parseGatewayRpcAnswer(json);
    if (!parsed.ok)
      throw new Error(`gateway RPC answer did not match the protocol (${parsed.error})`);
    return parsed.value;
  }

  private async toDaemon(
    prefix: string,
    path: string,
    init: DaemonRequestInit = {},
  ): Promise<Response> {
    if (!path.startsWith("/")) throw new Error(`daemon path must start with "/", got "${path}"`);
    const res = await this.request(`${prefix}${path}`, init);
    const code = res.headers.get(DOOR_ERROR_HEADER);
    if (code !== null && NOT_THROUGH.includes(code)) {
      const text = await res.text().catch(() => "");
      throw new DoorUnreachableError(
        `sandbox ${this.sandbox.id}'s door answered ${res.status} ${code}: ${errorMessage(text)}`,
        code,
      );
    }
    return res;
  }

  /**
   * `GET /health`; rejects with a reason when it is not a valid signed answer. With `waitMs`,
   * a door whose daemon is starting holds the answer until its status changes or that long.
   */
  async health(signal?: AbortSignal, waitMs = 0): Promise<SidecarHealth> {
    const path =
      waitMs > 0 ? `${DOOR_ROUTES.health}?wait=${Math.round(waitMs)}` : DOOR_ROUTES.health;
    const res = await this.request(path, { signal });
    const text = await res.text();
    if (!res.ok) {
      throw new DoorUnreachableError(
        `sidecar health answered ${res.status}: ${errorMessage(text)}`,
        res.headers.get(DOOR_ERROR_HEADER),
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const parsed = parseSidecarHealth(json);
    if (!parsed.ok)
      throw new Error(`sidecar health answer did not match the protocol (${parsed.error})`);
    return parsed.value;
  }

  /** `GET /logs?tail=<bytes>`: the end of the sidecar's rotating log, as text. */
  async logTail(bytes: number, signal?: AbortSignal): Promise<string> {
    const res = await this.request(`${DOOR_ROUTES.logs}?tail=${bytes}`, { signal });
    const text = await res.text();
    if (!res.ok) {
      throw new DoorUnreachableError(
        `sidecar logs answered ${res.status}: ${errorMessage(text)}`,
        res.headers.get(DOOR_ERROR_HEADER),
      );
    }
    return text;
  }
}

/** The client for a sandbox, keyed with its own secret (derived from CLAWRUN_SECRET). */
export function sidecarClient(
  sandbox: Pick<ManagedSandbox, "id" | "domain">,
  masterSecret: string,
): SidecarClient {
  return new SidecarClient(sandbox, heartbeatSecret(masterSecret, sandbox.id));
}

function errorMessage(text: string): string {
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof json.error?.message === "string") return json.error.message;
  } catch {
    // not the door's JSON error
  }
  return text.slice(0, 200);
}

function describe(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  const cause = e?.cause?.code ?? e?.cause?.message;
  return cause ? `${e.message} (${cause})` : String(e?.message ?? err);
}
