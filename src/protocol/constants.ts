/** Ports declared inside every sandbox (docs/sidecar.md: daemon 3000, sidecar 3001). */
export const SANDBOX_PORTS = { daemon: 3000, sidecar: 3001 } as const;

/**
 * A provider that maps sandbox ports to other host ports (the local provider) tells the
 * processes inside through `CLAWRUN_PORT_<declared>`; where it is unset (Vercel) the
 * declared port is the real one. This is the one seam that lets sidecar and daemon run
 * unchanged on both providers.
 */
export function portEnvName(declaredPort: number): string {
  return `CLAWRUN_PORT_${declaredPort}`;
}

export function resolveListenPort(
  declaredPort: number,
  env: Record<string, string | undefined>,
): number {
  const raw = env[portEnvName(declaredPort)];
  if (raw === undefined || raw === "") return declaredPort;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`${portEnvName(declaredPort)}: expected a port number, got "${raw}"`);
  }
  return port;
}

/** Environment variable that carries the sidecar's heartbeat secret (never argv; docs/sidecar.md). */
export const HB_SECRET_ENV = "CLAWRUN_HB_SECRET";

/**
 * Environment variable that carries Vercel's Deployment Protection bypass to the sidecar, which
 * sends it as this header with each heartbeat (docs/deploy.md, "Deployment Protection").
 */
export const BYPASS_ENV = "CLAWRUN_PROTECTION_BYPASS";
export const BYPASS_HEADER = "x-vercel-protection-bypass";

/**
 * Environment variable that carries the daemon's own environment (JSON object of strings) to
 * the sidecar: the daemon's secrets (model key, gateway token, `fromEnv` values) live only in
 * process environments, never in a file a snapshot would capture (docs/sidecar.md, "Config").
 */
export const DAEMON_ENV_ENV = "CLAWRUN_DAEMON_ENV";
