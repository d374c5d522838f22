import { connect } from "node:net";

/**
 * One TCP connect attempt: true when something accepts on host:port within timeoutMs.
 * The connection is closed at once; the daemon sees an empty connection, which every
 * HTTP server tolerates.
 */
export function probePort(port: number, host = "127.0.0.1", timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    let settled = false;
    const done = (ok: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}
