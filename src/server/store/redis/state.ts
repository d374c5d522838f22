import { z } from "zod";
import { type StoredHeartbeat, storedHeartbeatSchema } from "../../domain/heartbeat-record";
import type { InstanceState, Versioned } from "../../domain/instance-state";
import { HEARTBEAT_RETENTION_MS } from "../store-options";
import { parseStoredJson } from "../stored-data";
import type { CasResult, HeartbeatRecord, HeartbeatStore, StateGlance, StateStore } from "../types";
import { parseReply, type RedisContext, stateFrom } from "./context";
import { CAS_STATE, GLANCE, RECORD_HEARTBEAT } from "./scripts";

const nullableText = z.string().nullable();
const flag = z.union([z.literal(0), z.literal(1)]);
const stateReply = z.tuple([nullableText, nullableText]);
const casReply = z.union([
  z.tuple([z.literal(1), z.number()]),
  z.tuple([z.literal(0), nullableText, nullableText]),
]);
const glanceReply = z.tuple([nullableText, nullableText, z.number(), z.number()]);
const heartbeatReply = z.tuple([flag, nullableText, nullableText, nullableText]);

/** The state hash {version, value}; compare-and-set is one Lua script. */
export class RedisState implements StateStore {
  private readonly cas;
  private readonly glanceScript;

  constructor(private readonly ctx: RedisContext) {
    this.cas = ctx.redis.createScript(CAS_STATE);
    this.glanceScript = ctx.redis.createScript(GLANCE);
  }

  async get(): Promise<Versioned<InstanceState> | null> {
    const key = this.ctx.keys.state;
    const raw = await this.ctx.call(key, () => this.ctx.exec(["HMGET", key, "version", "value"]));
    const [version, value] = parseReply(stateReply, raw, "state.get");
    return stateFrom(this.ctx.keys, version, value);
  }

  async compareAndSet(expectedVersion: number, next: InstanceState): Promise<CasResult> {
    const key = this.ctx.keys.state;
    const raw = await this.ctx.call(key, () =>
      this.cas.exec([key], [String(expectedVersion), JSON.stringify(next)]),
    );
    const reply = parseReply(casReply, raw, "state.compareAndSet");
    if (reply[0] === 1) return { ok: true, version: reply[1] };
    return { ok: false, current: stateFrom(this.ctx.keys, reply[1], reply[2]) };
  }

  async glance(): Promise<StateGlance> {
    const { keys } = this.ctx;
    const queues = [keys.queue("inbox").pending, keys.queue("outbox").pending];
    const raw = await this.ctx.call(keys.state, () =>
      this.glanceScript.exec([keys.state, ...queues], []),
    );
    const [version, value, inboxPending, outboxPending] = parseReply(
      glanceReply,
      raw,
      "state.glance",
    );
    return { state: stateFrom(keys, version, value), inboxPending, outboxPending };
  }
}

/** Last heartbeat per sandbox; recording one also reads the state, in one script. */
export class RedisHeartbeats implements HeartbeatStore {
  private readonly script;

  constructor(private readonly ctx: RedisContext) {
    this.script = ctx.redis.createScript(RECORD_HEARTBEAT);
  }

  async record(hb: StoredHeartbeat): Promise<HeartbeatRecord> {
    const { keys } = this.ctx;
    const key = keys.heartbeat(hb.sandboxId);
    const raw = await this.ctx.call(key, () =>
      this.script.exec(
        [key, keys.state],
        [String(hb.sentAt), JSON.stringify(hb), String(HEARTBEAT_RETENTION_MS)],
      ),
    );
    const [fresh, version, value, previous] = parseReply(heartbeatReply, raw, "heartbeats.record");
    return {
      fresh: fresh === 1,
      previous: previous === null ? null : parseStoredJson(storedHeartbeatSchema, previous, key),
      state: stateFrom(keys, version, value),
    };
  }

  async get(sandboxId: string): Promise<StoredHeartbeat | null> {
    const key = this.ctx.keys.heartbeat(sandboxId);
    const raw = await this.ctx.call(key, () => this.ctx.exec(["HGET", key, "value"]));
    return raw === null ? null : parseStoredJson(storedHeartbeatSchema, raw, key);
  }
}
