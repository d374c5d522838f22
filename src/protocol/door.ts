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
} as const;

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
} as const;

/**
 * Set on every answer the door makes itself (never on the daemon's, which the door strips of
 * it), so ClawRun can tell "the door refused" from "the daemon answered".
 */
export const DOOR_ERROR_HEADER = "x-clawrun-door-error";
