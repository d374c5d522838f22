import type { OpenDelivery, OpenDeliveryStore } from "../types";
import type { RedisContext } from "./context";
import { OPEN_DELIVERY } from "./scripts";

/** The hash outlives any delivery; stale marks are dropped by the next `open`. */
const TTL_MS = 24 * 3_600_000;

/** Delivery marks in one hash: `open` is one EVALSHA, `close` one HDEL. */
export class RedisDeliveries implements OpenDeliveryStore {
  private readonly openScript;

  constructor(private readonly ctx: RedisContext) {
    this.openScript = ctx.redis.createScript(OPEN_DELIVERY);
  }

  async open(d: OpenDelivery, now: number): Promise<void> {
    const key = this.ctx.keys.delivering;
    await this.ctx.call(key, () =>
      this.openScript.exec(
        [key],
        [d.id, String(d.until), JSON.stringify(d), String(now), String(TTL_MS)],
      ),
    );
  }

  async close(id: string): Promise<void> {
    const key = this.ctx.keys.delivering;
    await this.ctx.call(key, () => this.ctx.exec(["HDEL", key, `u|${id}`, `v|${id}`]));
  }
}
