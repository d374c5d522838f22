import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../../src/server/app-context";
import { createAppContext } from "../../../src/server/compose/context";
import { errorResponse } from "../../../src/server/http/errors";
import type { RouteResult } from "../../../src/server/http/route";
import { handleWebhookRequest } from "../../../src/server/http/webhook-handler";

/** A webhook request as the platform would send it. */
export interface PlatformRequest {
  method: "GET" | "POST";
  /** Query string for GET verification, e.g. "?hub.mode=subscribe&...". */
  query?: string;
  headers: Record<string, string>;
  body: string;
}

export interface MessageSpec {
  /** The platform's event/message id (what the inbox dedupes on). */
  id: string;
  /** A chat the harness maps to its own conversation key. */
  chat: string;
  text: string;
  now: number;
}

/** What each channel brings to run the contract suite against itself. */
export interface ChannelContractHarness {
  name: string;
  /** `channels.<name>` in clawrun.json and the environment it needs (fake platform URLs included). */
  setup(): Promise<{
    config: Record<string, unknown>;
    env: Record<string, string>;
    cleanup?: () => Promise<void>;
  }>;
  /** A correctly signed request carrying one plain-text message. */
  message(m: MessageSpec): PlatformRequest;
  /** The inbox entry that message must become: the dedupe key and the conversation key. */
  stored(m: MessageSpec): { id: string; conversation: string; text: string };
  /** The same request with a signature made with the wrong key (or a tampered body). */
  forge(req: PlatformRequest): PlatformRequest;
  /** The same request without its authentication header(s). */
  unsign(req: PlatformRequest): PlatformRequest;
  /** A request signed `ageMs` ago, for platforms whose signatures carry a time; else undefined. */
  stale?(m: MessageSpec, ageMs: number): PlatformRequest;
  /** The same event delivered again later with a fresh signature (a platform retry). */
  retry(m: MessageSpec): PlatformRequest;
  /** One signed request carrying several messages, for platforms that batch (WhatsApp). */
  batch?(m: MessageSpec[]): PlatformRequest;
  /** Verification handshakes (challenge, PING, hub GET) and their exact answers. */
  handshakes: {
    name: string;
    request: (now: number) => PlatformRequest;
    status: number;
    body: unknown;
  }[];
  /** Signed events that are not messages for the agent (answered with `status`, nothing stored). */
  ignorable: { name: string; request: (now: number) => PlatformRequest; status: number }[];
  /** Signed (where signing is possible) but not what the platform sends. */
  malformed(now: number): PlatformRequest;
  /** The answer to a message that was queued. */
  queuedStatus: number;
  /** Its body, for platforms that read it (e.g. Discord's deferred response); unchecked if absent. */
  queuedBody?: unknown;
  /** Bytes above which the channel refuses a body with 413. */
  maxBodyBytes: number;
}

/**
 * One contract for every channel: authenticity, platform handshakes, dedupe of retries, ignore
 * rules, and bad input leaving the inbox unchanged. It runs the production webhook handler on
 * an app built by the real composition root (real sqlite store, agent asleep).
 */
export function describeChannelContract(h: ChannelContractHarness): void {
  describe(`channel contract: ${h.name}`, () => {
    let ctx: AppContext;
    let dir: string;
    let cleanup: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), `clawrun-channel-${h.name}-`));
      const s = await h.setup();
      cleanup = s.cleanup;
      writeFileSync(
        join(dir, "clawrun.json"),
        JSON.stringify({ channels: { [h.name]: s.config } }),
      );
      ctx = await createAppContext({
        source: {
          PATH: process.env.PATH,
          CLAWRUN_STATE_DIR: dir,
          CLAWRUN_CONFIG: join(dir, "clawrun.json"),
          CLAWRUN_PUBLIC_URL: "http://127.0.0.1:9",
          CLAWRUN_LOCAL_TICK: "0",
          ...s.env,
        },
        logger: pino({ level: "silent" }),
      });
    });
    afterAll(async () => {
      await ctx?.close();
      await cleanup?.();
      rmSync(dir, { recursive: true, force: true });
    });

    /** Runs the handler as the route would (errors mapped in one place); follow-ups are dropped. */
    async function send(req: PlatformRequest): Promise<{ status: number; body: unknown }> {
      const request = new Request(
        `http://127.0.0.1/api/webhooks/${h.name}${req.query ?? ""}`,
        req.method === "GET"
          ? { method: "GET", headers: req.headers }
          : { method: "POST", headers: req.headers, body: req.body },
      );
      let result: RouteResult;
      try {
        result = await handleWebhookRequest(request, h.name, ctx);
      } catch (err) {
        result = errorResponse(err, null);
      }
      const response = result instanceof Response ? result : result.response;
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // plain-text answers (e.g. a hub challenge) stay text
      }
      return { status: response.status, body };
    }

    const inbox = async () => (await ctx.store.inbox.listPending(1000)).map((m) => m.id).sort();
    let n = 0;
    const spec = (text = "hello"): MessageSpec => {
      n += 1;
      return { id: `${Date.now()}${n}`, chat: `chat-${n % 3}`, text, now: Date.now() };
    };

    it("queues a signed message once, with the platform's id and the conversation", async () => {
      const m = spec("hello from the contract");
      const before = await inbox();
      const res = await send(h.message(m));
      expect(res.status).toBe(h.queuedStatus);
      if (h.queuedBody !== undefined) expect(res.body).toEqual(h.queuedBody);
      const expected = h.stored(m);
      const stored = (await ctx.store.inbox.listPending(1000)).find((x) => x.id === expected.id);
      expect(stored).toMatchObject({ ...expected, channel: h.name });
      expect((await inbox()).length).toBe(before.length + 1);
    });

    it("dedupes a platform retry of the same event (fresh signature, same id)", async () => {
      const m = spec();
      expect((await send(h.message(m))).status).toBe(h.queuedStatus);
      const after = await inbox();
      const again = await send(h.retry({ ...m, now: Date.now() }));
      expect(again.status).toBeGreaterThanOrEqual(200);
      expect(again.status).toBeLessThan(300);
      expect(await inbox()).toEqual(after);
    });

    it.skipIf(!h.batch)(
      "stores every message of a batched request in order, and a retry of the batch not again",
      async () => {
        const specs = [spec("first of three"), spec("second"), spec("third")];
        const batch = (ms: MessageSpec[]) => h.batch?.(ms) as PlatformRequest;
        expect((await send(batch(specs))).status).toBe(h.queuedStatus);
        const ids = specs.map((m) => h.stored(m).id);
        const pending = await ctx.store.inbox.listPending(1000);
        expect(pending.filter((p) => ids.includes(p.id)).map((p) => p.id)).toEqual(ids);
        const after = await inbox();
        const again = await send(batch(specs.map((m) => ({ ...m, now: Date.now() }))));
        expect(again.status).toBeGreaterThanOrEqual(200);
        expect(again.status).toBeLessThan(300);
        expect(await inbox()).toEqual(after);
      },
    );

    it("refuses forged, unsigned and stale requests with 401 and stores nothing", async () => {
      const before = await inbox();
      const m = spec();
      const forged = await send(h.forge(h.message(m)));
      expect(forged.status).toBe(401);
      expect(forged.body).toMatchObject({ error: { code: expect.any(String) } });
      expect((await send(h.unsign(h.message(spec())))).status).toBe(401);
      if (h.stale) expect((await send(h.stale(spec(), 10 * 60_000))).status).toBe(401);
      expect(await inbox()).toEqual(before);
    });

    it("answers the platform's verification handshakes exactly and stores nothing", async () => {
      const before = await inbox();
      for (const hs of h.handshakes) {
        const res = await send(hs.request(Date.now()));
        expect(res, hs.name).toEqual({ status: hs.status, body: hs.body });
      }
      expect(await inbox()).toEqual(before);
    });

    it("ignores events that are not messages for the agent", async () => {
      const before = await inbox();
      for (const ig of h.ignorable) {
        expect((await send(ig.request(Date.now()))).status, ig.name).toBe(ig.status);
      }
      expect(await inbox()).toEqual(before);
    });

    it("refuses malformed (400) and oversized (413) bodies and stores nothing", async () => {
      const before = await inbox();
      const bad = await send(h.malformed(Date.now()));
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({
        error: { code: expect.any(String), message: expect.any(String) },
      });
      const big = h.message({ ...spec("x".repeat(h.maxBodyBytes + 1)) });
      expect((await send(big)).status).toBe(413);
      expect(await inbox()).toEqual(before);
    });
  });
}
