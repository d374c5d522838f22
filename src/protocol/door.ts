/**
 * The sidecar's door: the one port a sandbox exposes (docs/sidecar.md, "The door"). Every
 * request to it is signed (signing.ts, doorSignatureHeaders); these are its routes and the
 * error codes ClawRun branches on.
 */
export const DOOR_ROUTES = {
  health: "/health",
  logs: "/logs",
  /** `/daemon/<path>` is forwarded to `<path>` on the daemon's loopback port. */
  daemonPrefix: "/daemon",
  /**
   * `/control/<path>`: forwarded to `<path>` on the daemon like `/daemon`, for ClawRun's own
   * calls (asking the agent's consent to sleep, resuming it): never activity, never an open
   * delivery, never journaled, so asking "may I sleep?" does not keep the agent awake.
   */
  controlPrefix: "/control",
  /**
   * `POST /gateway-rpc`: one request over the daemon's WebSocket in OpenClaw's gateway frames
   * (src/protocol/gateway-rpc.ts); ClawRun's own call, never activity.
   */
  gatewayRpc: "/gateway-rpc",
} as const;

/**
 * `GET /health?wait=<ms>`: while the daemon is starting, the door holds the answer until its
 * status changes or `wait` ms pass, so a start is seen the moment it happens without polling
 * (docs/sidecar.md, "The door"). At most this long; a door that ignores it answers at once.
 */
export const DOOR_MAX_HEALTH_WAIT_MS = 5_000;

/** The daemon binds this host only: nothing outside the sandbox reaches it except through the door. */
export const DAEMON_HOST = "127.0.0.1";

/** The largest request body the door forwards to the daemon (a chat message is far smaller). */
export const DOOR_MAX_BODY_BYTES = 2 * 1024 * 1024;

/** The most of the log tail `GET /logs?tail=<bytes>` returns. */
export const DOOR_MAX_LOG_TAIL_BYTES = 1024 * 1024;

/** Error codes of the door's JSON errors (`{ "error": { "code", "message" } }`). */
export const DOOR_ERRORS = {
  unauthorized: "unauthorized",
  /** 502: nothing listens on the daemon's loopback port (connection refused or reset). */
  daemonUnreachable: "daemon_unreachable",
  bodyTooLarge: "body_too_large",
  notFound: "not_found",
  methodNotAllowed: "method_not_allowed",
  badRequest: "bad_request",
  /** 504: `/gateway-rpc` reached the daemon but the exchange broke or ran out of time. */
  gatewayRpcFailed: "gateway_rpc_failed",
} as const;

/**
 * Set on every answer the door makes itself (never on the daemon's, which the door strips of
 * it), so ClawRun can tell "the door refused" from "the daemon answered".
 */
export const DOOR_ERROR_HEADER = "x-clawrun-door-error";

/**
 * Names the message a delivery carries (issue 23, item 4). The door keeps the daemon's 2xx
 * answer under it in its reply journal and answers a redelivery of the same id from there,
 * without calling the daemon; the header is the door's own and is not forwarded.
 */
export const DELIVERY_ID_HEADER = "x-clawrun-delivery-id";

/** Set (to "1") on an answer the door replayed from its journal instead of asking the daemon. */
export const DOOR_REPLAYED_HEADER = "x-clawrun-replayed";

/** The journal's place under the sandbox root: inside the agent's state, so a snapshot keeps it. */
export const REPLY_JOURNAL_PATH = ".clawrun/state/replies.json";
