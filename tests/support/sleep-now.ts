import type { ClawrunServer } from "./clawrun-server";
import { waitFor } from "./free-port";
import { instanceStatus } from "./messages";

/** Puts the agent to sleep through the operator API (snapshot + stop) and waits until it is. */
export async function sleepNow(server: ClawrunServer): Promise<void> {
  if ((await instanceStatus(server)) !== "sleeping") {
    const res = await fetch(`${server.url}/api/sandbox/stop`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.secrets.admin}` },
    });
    if (res.status !== 202) throw new Error(`stop answered ${res.status}: ${await res.text()}`);
  }
  await waitFor("sleeping", async () => (await instanceStatus(server)) === "sleeping", 30_000, 50);
}
