/**
 * What a warm Node.js process is told to become (docs/local-provider.md, "Warm Node"), which
 * commands may run in one, and the warm child a warm process leaves for the program it
 * becomes. Pure; shared by the local provider, the warm program and the sidecar (which runs
 * the daemon in that child).
 */

export interface WarmJob {
  /** The script, as given (resolved against `cwd` by the warm process). */
  script: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** The environment a warm process boots with: what Node reads only at start-up. */
export interface WarmBootEnv {
  PATH: string;
  LANG?: string;
  TZ?: string;
}

/**
 * Variables Node (or OpenSSL, libuv, ICU) reads while it boots: a process that booted
 * without them cannot take them on later, so a command that sets one is spawned cold.
 */
const READ_AT_BOOT = /^(NODE_|UV_|OPENSSL_|SSL_CERT_|LC_)/;

/**
 * Pure: the job for `node <script> [args…]` when a process that booted with `boot` would run
 * it exactly as a fresh `node` would; null otherwise (another program, node options, or an
 * environment Node reads at boot). Which `node` binary the command's PATH finds is checked
 * by the caller.
 */
export function warmJobFor(
  cmd: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  cwd: string,
  boot: Readonly<WarmBootEnv>,
): WarmJob | null {
  const [script, ...rest] = args;
  if (cmd !== "node" || script === undefined || script === "" || script.startsWith("-")) {
    return null;
  }
  if (Object.keys(env).some((k) => READ_AT_BOOT.test(k))) return null;
  if (env.LANG !== boot.LANG || env.TZ !== boot.TZ) return null;
  return { script, args: rest, env: { ...env }, cwd };
}

/** Hand-checked (the warm program carries no package): a job, or null when malformed. */
export function parseWarmJob(json: unknown): WarmJob | null {
  if (typeof json !== "object" || json === null) return null;
  const { script, args, env, cwd } = json as Record<string, unknown>;
  if (typeof script !== "string" || script === "" || typeof cwd !== "string") return null;
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) return null;
  if (typeof env !== "object" || env === null || Array.isArray(env)) return null;
  if (!Object.values(env).every((v) => typeof v === "string")) return null;
  return { script, args, env: { ...(env as Record<string, string>) }, cwd };
}

/**
 * A second warm process, booted by a warm process as its child while both wait, and left for
 * the program the parent becomes: the sidecar runs its daemon in it, so the daemon's start does
 * not wait for Node's own (docs/local-provider.md, "Warm Node"). Its job goes down fd 3.
 * `P` is node:child_process's ChildProcess (this module stays free of I/O).
 */
export interface WarmChild<P> {
  child: P;
  /** The node binary it runs (real path). */
  node: string;
  /** The environment it booted with. */
  boot: WarmBootEnv;
}

/**
 * Where the warm process leaves its warm child (`globalThis[WARM_CHILD_SLOT]`): the program
 * it becomes is bundled separately, so the key is a registered symbol, one per process.
 */
export const WARM_CHILD_SLOT = Symbol.for("clawrun.warm-child");
