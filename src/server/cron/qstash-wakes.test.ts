import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeQStash, startFakeQStash } from "../../../tests/support/fake-qstash";
import type { SchedulerSettings } from "../../config/env";
import { SqliteStore } from "../store/sqlite/store";
import { QStashWakeScheduler, verifyQStashRequest } from "./qstash-wakes";

/** The scheduler against a local server speaking QStash's HTTP API, its plan in a real store. */

const CRON_URL = "https://claw.example/api/cron";
let qstash: FakeQStash;
let store: SqliteStore;
let dir: string;

beforeEach(async () => {
  qstash = await startFakeQStash();
  dir = mkdtempSync(join(tmpdir(), "clawrun-qstash-"));
  store = new SqliteStore(join(dir, "store.db"), { instance: "test" });
});

afterEach(async () => {
  await qstash.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function settings(): SchedulerSettings {
  return {
    kind: "qstash",
    token: qstash.token,
    baseUrl: qstash.url,
    currentSigningKey: qstash.currentSigningKey,
    nextSigningKey: qstash.nextSigningKey,
  };
}

function scheduler(protectionBypass: string | null = null) {
  return new QStashWakeScheduler({
    settings: settings(),
    kv: store.kv,
    cronUrl: CRON_URL,
    protectionBypass,
    clock: Date.now,
    logger: pino({ level: "silent" }),
  });
}

describe("QStashWakeScheduler", () => {
  it("publishes one wake per planned time, moves it, and cancels it", async () => {
    const s = scheduler("bypass-secret");
    const t1 = Date.now() + 3_600_500;
    await s.ensure(t1);
    expect(qstash.published).toHaveLength(1);
    const [first] = qstash.published;
    expect(first).toMatchObject({
      destination: CRON_URL,
      notBefore: Math.ceil(t1 / 1000),
      forwardedHeaders: { "x-vercel-protection-bypass": "bypass-secret" },
    });
    expect(JSON.parse(first?.body ?? "")).toEqual({ reason: "scheduled wake", at: t1 });

    // The same time again, from this or another function instance: nothing new.
    await s.ensure(t1);
    await scheduler().ensure(t1);
    expect(qstash.published).toHaveLength(1);

    const t2 = t1 + 60_000;
    await s.ensure(t2);
    expect(qstash.cancelled).toEqual([first?.messageId]);
    expect(qstash.published.map((p) => p.notBefore)).toEqual([
      Math.ceil(t1 / 1000),
      Math.ceil(t2 / 1000),
    ]);

    await s.ensure(null);
    expect(qstash.cancelled).toEqual([first?.messageId, qstash.published[1]?.messageId]);
    expect(await store.kv.get("scheduled-wake")).toBeNull();
  });

  it("re-plans when the planned message is already gone", async () => {
    const s = scheduler();
    const t1 = Date.now() + 50;
    await s.ensure(t1);
    await new Promise((r) => setTimeout(r, 1_200)); // delivered (to nowhere): cannot be cancelled
    await s.ensure(t1 + 3_600_000);
    expect(qstash.published).toHaveLength(2);
    expect(qstash.cancelled).toEqual([]);
  });
});

describe("verifyQStashRequest", () => {
  const body = JSON.stringify({ reason: "scheduled wake", at: 1 });

  it("accepts QStash's signature with the current or the next key", async () => {
    expect(await verifyQStashRequest(settings(), await qstash.sign(CRON_URL, body), body)).toEqual({
      ok: true,
    });
    expect(
      await verifyQStashRequest(
        settings(),
        await qstash.sign(CRON_URL, body, qstash.nextSigningKey),
        body,
      ),
    ).toEqual({ ok: true });
  });

  it("refuses a missing signature, another key, and another body", async () => {
    expect(await verifyQStashRequest(settings(), null, body)).toEqual({
      ok: false,
      reason: "missing Upstash-Signature header",
    });
    const other = await verifyQStashRequest(
      settings(),
      await qstash.sign(CRON_URL, body, "sig_someone_else"),
      body,
    );
    expect(other.ok).toBe(false);
    const tampered = await verifyQStashRequest(
      settings(),
      await qstash.sign(CRON_URL, body),
      body.replace("1", "2"),
    );
    expect(tampered).toMatchObject({ ok: false, reason: expect.stringMatching(/body hash/) });
  });
});
