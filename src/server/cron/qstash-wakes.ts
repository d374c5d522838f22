import type { Client } from "@upstash/qstash";
import type { Logger } from "pino";
import { z } from "zod";
import type { SchedulerSettings } from "../../config/env";
import type { PlannedWake, WakeScheduler } from "../domain/wake-scheduler";
import type { KvStore } from "../store/types";
import { planWakeChange } from "./wake-timing";

/** Store key of the planned wake (one per instance: the store prefixes keys with it). */
const PLANNED_KEY = "scheduled-wake";
const plannedSchema = z.object({ at: z.number(), messageId: z.string().min(1) });
/** A plan is forgotten a day after its time (it fired, or it was superseded). */
const KEEP_AFTER_MS = 24 * 60 * 60 * 1000;

export interface QStashWakeOptions {
  settings: SchedulerSettings;
  kv: KvStore;
  /** Where QStash calls: `<public URL>/api/cron`. */
  cronUrl: string;
  /** VERCEL_AUTOMATION_BYPASS_SECRET: QStash forwards it as a header through Deployment Protection. */
  protectionBypass: string | null;
  clock: () => number;
  logger: Logger;
}

/**
 * Scheduled wakes through Upstash QStash (docs/deploy.md, "Scheduled wakes"): one message per
 * planned time, published with `Upstash-Not-Before`, cancelled when the time moves. QStash
 * POSTs it to /api/cron signed with the project's signing keys.
 */
export class QStashWakeScheduler implements WakeScheduler {
  readonly description: string;
  private client: Promise<Client> | null = null;

  constructor(private readonly o: QStashWakeOptions) {
    this.description = `QStash one-shot wakes at ${o.cronUrl}`;
  }

  /** The SDK is loaded at the first plan, not with the server (docs/architecture.md, "Start-up"). */
  private qstash(): Promise<Client> {
    this.client ??= import("@upstash/qstash").then(
      ({ Client }) =>
        new Client({
          token: this.o.settings.token,
          ...(this.o.settings.baseUrl ? { baseUrl: this.o.settings.baseUrl } : {}),
        }),
    );
    return this.client;
  }

  async ensure(at: number | null): Promise<void> {
    const planned = parsePlanned(await this.o.kv.get(PLANNED_KEY));
    const now = this.o.clock();
    const change = planWakeChange(at, planned, now);
    if (change.cancel) {
      // Gone meanwhile: nothing to cancel, and a spare wake is harmless anyway.
      await (await this.qstash()).messages.cancel(change.cancel).catch((err: unknown) => {
        this.o.logger.debug({ err: String(err) }, "scheduled wake: nothing to cancel");
      });
    }
    if (change.publish === null) {
      // No wake wanted any more: forget the plan (the same time still planned: keep it).
      if (at === null && planned) await this.o.kv.delete(PLANNED_KEY);
      return;
    }
    const { messageId } = await (await this.qstash()).publishJSON({
      url: this.o.cronUrl,
      body: { reason: "scheduled wake", at: change.publish },
      // QStash takes whole seconds; rounding up never wakes before the time.
      notBefore: Math.ceil(change.publish / 1000),
      ...(this.o.protectionBypass
        ? { headers: { "x-vercel-protection-bypass": this.o.protectionBypass } }
        : {}),
    });
    const record: PlannedWake = { at: change.publish, messageId };
    await this.o.kv.set(
      PLANNED_KEY,
      JSON.stringify(record),
      Math.max(0, change.publish - now) + KEEP_AFTER_MS,
    );
    this.o.logger.info(
      { at: new Date(change.publish).toISOString(), messageId },
      "scheduled wake planned",
    );
  }
}

function parsePlanned(raw: string | null): PlannedWake | null {
  if (raw === null) return null;
  try {
    const parsed = plannedSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Whether a request really comes from QStash: its `Upstash-Signature` JWT is checked with the
 * current, then the next signing key by `@upstash/qstash`'s Receiver (issuer, expiry and the
 * body's SHA-256). Returns the reason when it does not.
 */
export async function verifyQStashRequest(
  settings: SchedulerSettings,
  signature: string | null,
  body: string,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  if (!signature) return { ok: false, reason: "missing Upstash-Signature header" };
  const { Receiver } = await import("@upstash/qstash");
  const receiver = new Receiver({
    currentSigningKey: settings.currentSigningKey,
    nextSigningKey: settings.nextSigningKey,
  });
  try {
    return (await receiver.verify({ signature, body, clockTolerance: 5 }))
      ? { ok: true }
      : { ok: false, reason: "signature does not verify" };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}
