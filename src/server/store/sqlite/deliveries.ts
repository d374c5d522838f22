import type { OpenDelivery, OpenDeliveryStore } from "../types";
import type { SqliteContext } from "./inbox";

/** Delivery marks in one table; `open` is one IMMEDIATE transaction, `close` one DELETE. */
export class SqliteDeliveries implements OpenDeliveryStore {
  constructor(private readonly ctx: SqliteContext) {}

  open(d: OpenDelivery, now: number): Promise<void> {
    const { ctx } = this;
    return ctx.run(() =>
      ctx.tx(() => {
        // Marks of a server that died mid-delivery ran out: drop them here, not on every read.
        ctx
          .sql(`DELETE FROM open_deliveries WHERE instance = ? AND until <= ?`)
          .run(ctx.instance, now);
        ctx
          .sql(
            `INSERT INTO open_deliveries (instance, id, until, value) VALUES (?, ?, ?, ?)
             ON CONFLICT (instance, id) DO UPDATE SET until = excluded.until, value = excluded.value`,
          )
          .run(ctx.instance, d.id, d.until, JSON.stringify(d));
      }),
    );
  }

  close(id: string): Promise<void> {
    const { ctx } = this;
    return ctx.run(() => {
      ctx.sql(`DELETE FROM open_deliveries WHERE instance = ? AND id = ?`).run(ctx.instance, id);
    });
  }
}
