import { DELIVERY_ID_HEADER } from "../../protocol/door";
import type { DaemonTransport } from "./types";

/**
 * The door for one message's delivery: every non-GET request names the message id, so the
 * sidecar answers a redelivery of it from its reply journal instead of asking the daemon again
 * (docs/sidecar.md, "Reply journal"). Agents need not know: it rides on whatever they send.
 */
export function withDeliveryId(door: DaemonTransport, messageId: string): DaemonTransport {
  return {
    label: door.label,
    sandboxId: door.sandboxId,
    fetch(path, init = {}) {
      const method = (init.method ?? "GET").toUpperCase();
      if (method === "GET" || method === "HEAD") return door.fetch(path, init);
      return door.fetch(path, {
        ...init,
        headers: { ...init.headers, [DELIVERY_ID_HEADER]: messageId },
      });
    },
  };
}
