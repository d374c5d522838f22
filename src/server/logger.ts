import pino, { type Logger } from "pino";
import pretty from "pino-pretty";

/**
 * Every field or header that can carry a secret. pino's `*` matches one level, so the
 * common nestings are listed explicitly; values are replaced, keys stay for debugging.
 */
const SECRET_KEYS = [
  "authorization",
  "cookie",
  "set-cookie",
  "token",
  "secret",
  "password",
  "apiKey",
  "hbSecret",
  "adminSecret",
  "x-clawrun-signature",
  "x-clawrun-webhook-signature",
];
export const REDACT_PATHS = [
  ...SECRET_KEYS.flatMap((k) => [`["${k}"]`, `*["${k}"]`, `*.*["${k}"]`]),
  "headers.*",
  "*.headers.*",
  "env.*",
  "*.env.*",
  "secrets",
  "*.secrets",
];

export interface LoggerOptions {
  level?: string;
  production?: boolean;
  /** Write here instead of stdout (tests). */
  destination?: NodeJS.WritableStream;
  /** More paths to redact (the config values its schema marks secret, under `config.`). */
  redact?: string[];
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const base = {
    level: opts.level ?? "info",
    redact: { paths: [...REDACT_PATHS, ...(opts.redact ?? [])], censor: "[redacted]" },
  };
  if (opts.destination) return pino(base, opts.destination as pino.DestinationStream);
  if (opts.production) return pino(base);
  // Readable lines in dev; synchronous so nothing is lost when the process exits.
  return pino(base, pretty({ colorize: true, sync: true, ignore: "pid,hostname" }));
}

export type { Logger };
