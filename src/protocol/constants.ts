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

/**
 * Where the sidecar's door listens. The local provider maps the door to 127.0.0.1 on the
 * host the sandbox shares (docs/local-provider.md, "Ports") and says so with
 * CLAWRUN_LISTEN_HOST=127.0.0.1; unset (Vercel), the door binds every interface because the
 * platform routes the sandbox's exposed port to it from outside the microVM.
 */
export const LISTEN_HOST_ENV = "CLAWRUN_LISTEN_HOST";

export function resolveListenHost(env: Record<string, string | undefined>): string {
  const raw = env[LISTEN_HOST_ENV];
  if (raw === undefined || raw === "") return "0.0.0.0";
  if (!/^[0-9a-fA-F.:]+$/.test(raw))
    throw new Error(`${LISTEN_HOST_ENV}: expected an IP address, got "${raw}"`);
  return raw;
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
