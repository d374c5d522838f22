import type { ClawrunServer } from "./clawrun-server";
import { waitFor } from "./free-port";
import { instanceStatus } from "./messages";

/**
 * Puts the agent to sleep through the operator API (snapshot + stop) and waits until it is.
 * The stop is asked again while the agent stays running: right after a burst, the request
 * may meet the lifecycle lock still held by the burst's wake and deliveries.
 */
export async function sleepNow(server: ClawrunServer): Promise<void> {
  let askedAt = 0;
  await waitFor(
    "sleeping",
    async () => {
      const status = await instanceStatus(server);
      if (status === "sleeping") return true;
      if (status === "running" && Date.now() - askedAt > 2_000) {
        askedAt = Date.now();
        const res = await fetch(`${server.url}/api/sandbox/stop`, {
          method: "POST",
          headers: { authorization: `Bearer ${server.secrets.admin}` },
        });
        if (![202, 409].includes(res.status))
          throw new Error(`stop answered ${res.status}: ${await res.text()}`);
      }
      return false;
    },
    60_000,
    50,
  );
}
