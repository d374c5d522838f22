import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startTestDoor, TEST_DOOR_SECRET, type TestDoor } from "../../tests/support/door";
import { freePort } from "../../tests/support/free-port";
import { DELIVERY_ID_HEADER, DOOR_ERROR_HEADER, DOOR_REPLAYED_HEADER } from "../protocol/door";
import { doorSignatureHeaders } from "../protocol/signing";
import { ChangeSignal } from "./change-signal";
import { forwardableHeaders } from "./daemon-proxy";
import { parseHealthWait, parseTail } from "./door-server";
import { OpenDeliveries } from "./open-deliveries";
import { ReplyJournal } from "./reply-journal";

/** A journal file in a temporary directory removed after the test. */
function journalPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "door-journal-"));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "replies.json");
}

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A daemon on loopback that records what reaches it and answers with `answer`. */
async function daemon(
  answer: (req: IncomingMessage, res: import("node:http").ServerResponse, seen: Seen) => void = (
    _req,
    res,
  ) => res.writeHead(200, { "content-type": "text/plain" }).end("ok"),
): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const s = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      seen.push(s);
      answer(req, res, s);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

async function door(daemonUrl: string, opts: Parameters<typeof startTestDoor>[1] = {}) {
  const d = await startTestDoor(daemonUrl, opts);
  cleanups.push(() => d.close());
  return d;
}

/** A request with headers of our choosing (unsigned, forged, replayed). */
function raw(d: TestDoor, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${d.url}${path}`, init);
}

describe("the door refuses anything not signed for exactly this request", () => {
  it.each([
    ["no headers at all", () => ({}), /missing x-clawrun-timestamp/],
    [
      "a timestamp but no signature",
      () => ({ "x-clawrun-timestamp": String(Date.now()) }),
      /missing x-clawrun-signature/,
    ],
    [
      "another secret (forged)",
      () => doorSignatureHeaders("someone-elses-secret-0123456789", "GET", "/health", ""),
      /x-clawrun-signature does not match the method, path and body/,
    ],
    [
      "a stale timestamp (61 s old)",
      () => doorSignatureHeaders(TEST_DOOR_SECRET, "GET", "/health", "", Date.now() - 61_000),
      /more than 60 s/,
    ],
    [
      "a signature made for another path (replayed)",
      () => doorSignatureHeaders(TEST_DOOR_SECRET, "GET", "/logs?tail=10", ""),
      /does not match/,
    ],
    [
      "a signature made for another method",
      () => doorSignatureHeaders(TEST_DOOR_SECRET, "POST", "/health", ""),
      /does not match/,
    ],
  ])("GET /health with %s → 401 naming the header", async (_name, headers, message) => {
    const d = await door((await daemon()).url);
    const res = await raw(d, "/health", { headers: headers() as Record<string, string> });
    expect(res.status).toBe(401);
    expect(res.headers.get(DOOR_ERROR_HEADER)).toBe("unauthorized");
    expect(await res.json()).toEqual({
      error: { code: "unauthorized", message: expect.stringMatching(message) },
    });
  });

  it("a delivery replayed to another daemon path, or with another body, reaches nobody", async () => {
    const dm = await daemon();
    const d = await door(dm.url);
    const headers = doorSignatureHeaders(TEST_DOOR_SECRET, "POST", "/daemon/message", '{"a":1}');
    const toOther = await raw(d, "/daemon/admin", { method: "POST", headers, body: '{"a":1}' });
    const otherBody = await raw(d, "/daemon/message", { method: "POST", headers, body: '{"a":2}' });
    const unsigned = await raw(d, "/daemon/message", { method: "POST", body: '{"a":1}' });
    expect([toOther.status, otherBody.status, unsigned.status]).toEqual([401, 401, 401]);
    expect(dm.seen).toEqual([]);
    expect(d.deliveries).toBe(0);
    // The original request itself passes.
    const ok = await raw(d, "/daemon/message", { method: "POST", headers, body: '{"a":1}' });
    expect(ok.status).toBe(200);
    expect(dm.seen).toHaveLength(1);
  });
});

describe("forwarding to the daemon", () => {
  it("passes method, path, query, body and end-to-end headers; drops hop-by-hop and the door's own", async () => {
    const dm = await daemon((_req, res) => {
      res.writeHead(201, {
        "content-type": "application/json",
        "x-daemon": "yes",
        [DOOR_ERROR_HEADER]: "unauthorized", // a daemon must not pass for the door
        "keep-alive": "timeout=5",
      });
      res.end('{"reply":"made"}');
    });
    const d = await door(dm.url);
    const res = await d.client.request("/daemon/v1/chat?session=a%20b", {
      method: "POST",
      body: "hello",
      headers: {
        "content-type": "text/plain",
        authorization: "Bearer gateway-token",
      },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-daemon")).toBe("yes");
    expect(res.headers.get(DOOR_ERROR_HEADER)).toBeNull();
    expect(await res.json()).toEqual({ reply: "made" });
    const seen = dm.seen[0] as Seen;
    expect(seen).toMatchObject({ method: "POST", url: "/v1/chat?session=a%20b", body: "hello" });
    expect(seen.headers).toMatchObject({
      "content-type": "text/plain",
      authorization: "Bearer gateway-token",
      "content-length": "5",
    });
    expect(seen.headers["x-clawrun-signature"]).toBeUndefined();
    expect(seen.headers["x-clawrun-timestamp"]).toBeUndefined();
    // Through the transport too (what agents use): the daemon's own answer, whatever its status.
    const viaTransport = await d.client.fetch("/anything", { method: "GET" });
    expect(viaTransport.status).toBe(201);
  });

  it("streams the answer: the status arrives before the daemon has finished its body", async () => {
    let finish: () => void = () => undefined;
    const dm = await daemon((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first ");
      finish = () => res.end("second");
    });
    const d = await door(dm.url);
    const res = await d.client.fetch("/stream");
    expect(res.status).toBe(200); // headers are here while the daemon still holds its body
    finish();
    expect(await res.text()).toBe("first second");
  });

  it("counts a delivery (not a GET) as activity, when it starts and when its answer is sent", async () => {
    const d = await door((await daemon()).url);
    await (await d.client.fetch("/readyz")).text();
    expect(d.deliveries).toBe(0);
    await (await d.client.fetch("/message", { method: "POST", body: "x" })).text();
    expect(d.deliveries).toBe(2);
  });

  it("forwards ClawRun's own POSTs (/control) without counting them as activity, an open delivery or a journaled answer", async () => {
    let release: () => void = () => undefined;
    const dm = await daemon((req, res) => {
      const answer = () =>
        res.writeHead(200, { "content-type": "application/json" }).end('{"status":"busy"}');
      if (req.url === "/slow") release = answer;
      else answer();
    });
    const path = journalPath();
    const open = new OpenDeliveries();
    const d = await door(dm.url, { journal: new ReplyJournal({ path }), openDeliveries: open });
    const ask = () =>
      d.client
        .control()
        .fetch("/rpc", { method: "POST", body: "{}", headers: { [DELIVERY_ID_HEADER]: "c1" } });
    expect(await (await ask()).json()).toEqual({ status: "busy" });
    expect(await (await ask()).json()).toEqual({ status: "busy" });
    // Both reached the daemon (no journal replay), as /rpc: the prefix is the door's.
    expect(dm.seen.map((s) => `${s.method} ${s.url}`)).toEqual(["POST /rpc", "POST /rpc"]);
    expect(d.deliveries).toBe(0);
    expect(new ReplyJournal({ path }).get("c1")).toBeUndefined();
    // While one is being answered, no delivery is open (the heartbeat's openDeliverySince).
    const slow = d.client.control().fetch("/slow", { method: "POST", body: "{}" });
    await until(() => dm.seen.length === 3);
    expect(open.oldestSince()).toBeNull();
    release();
    expect((await slow).status).toBe(200);
    // The same POST through /daemon is a delivery, for contrast.
    await (await d.client.fetch("/rpc", { method: "POST", body: "{}" })).text();
    expect(d.deliveries).toBe(2);
  });

  it("answers a redelivered message id from its journal: the daemon sees it once (issue 23)", async () => {
    let n = 0;
    const dm = await daemon((_req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(`{"reply":"answer ${++n}"}`),
    );
    const path = journalPath();
    const d = await door(dm.url, { journal: new ReplyJournal({ path }) });
    const send = async (id: string) => {
      const res = await d.client.fetch("/message", {
        method: "POST",
        body: "hello",
        headers: { [DELIVERY_ID_HEADER]: id },
      });
      return { text: await res.text(), replayed: res.headers.get(DOOR_REPLAYED_HEADER) };
    };
    expect(await send("m1")).toEqual({ text: '{"reply":"answer 1"}', replayed: null });
    expect(await send("m1")).toEqual({ text: '{"reply":"answer 1"}', replayed: "1" });
    expect(dm.seen).toHaveLength(1);
    // The door's own header is not the daemon's business.
    expect(dm.seen[0]?.headers[DELIVERY_ID_HEADER]).toBeUndefined();
    // The journal is a file: a sidecar restored from a snapshot answers from it too.
    expect(new ReplyJournal({ path }).get("m1")?.body).toBe('{"reply":"answer 1"}');
    expect((await send("m2")).text).toBe('{"reply":"answer 2"}');
    expect(dm.seen).toHaveLength(2);
  });

  it("does not journal a refusal: a redelivery of a refused message reaches the daemon", async () => {
    const dm = await daemon((_req, res) => res.writeHead(500).end("broken"));
    const path = journalPath();
    const d = await door(dm.url, { journal: new ReplyJournal({ path }) });
    for (let i = 0; i < 2; i++) {
      const init = { method: "POST", body: "x", headers: { [DELIVERY_ID_HEADER]: "m1" } };
      await (await d.client.fetch("/message", init)).text();
    }
    expect(dm.seen).toHaveLength(2);
  });

  it("answers a distinct 502 daemon_unreachable when nothing listens on the daemon's port", async () => {
    const d = await door(`http://127.0.0.1:${await freePort()}`);
    const res = await d.client.request("/daemon/message", { method: "POST", body: "x" });
    expect(res.status).toBe(502);
    expect(res.headers.get(DOOR_ERROR_HEADER)).toBe("daemon_unreachable");
    expect(await res.json()).toMatchObject({
      error: { code: "daemon_unreachable", message: expect.stringContaining("ECONNREFUSED") },
    });
    // The transport turns it into a rejection (agents: AgentUnreachableError).
    await expect(d.client.fetch("/message", { method: "POST", body: "x" })).rejects.toMatchObject({
      name: "DoorUnreachableError",
      code: "daemon_unreachable",
    });
  });

  it("refuses a body over the limit with 413 and forwards nothing", async () => {
    const dm = await daemon();
    const d = await door(dm.url, { maxBodyBytes: 1024 });
    const res = await d.client.request("/daemon/message", {
      method: "POST",
      body: "x".repeat(2048),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: "body_too_large" } });
    expect(dm.seen).toEqual([]);
  });

  it("drops the daemon's request when ClawRun gives up waiting (its delivery timeout)", async () => {
    let closed = false;
    const dm = await daemon((req) => {
      req.socket.on("close", () => {
        closed = true;
      });
    }); // never answers
    const d = await door(dm.url);
    await expect(
      d.client.fetch("/slow", { method: "POST", body: "x", signal: AbortSignal.timeout(200) }),
    ).rejects.toMatchObject({ name: "TimeoutError" });
    await expect.poll(() => closed, { timeout: 2_000 }).toBe(true);
  });
});

it("forwardableHeaders drops hop-by-hop headers, those Connection names, and the ones asked", () => {
  expect(
    forwardableHeaders(
      {
        connection: "keep-alive, X-Hop-Only",
        "keep-alive": "timeout=5",
        "transfer-encoding": "chunked",
        upgrade: "websocket",
        "proxy-authorization": "Basic x",
        te: "trailers",
        "x-hop-only": "1",
        "x-clawrun-signature": "v1=00",
        "content-type": "application/json",
        authorization: "Bearer t",
      },
      ["x-clawrun-signature"],
    ),
  ).toEqual({ "content-type": "application/json", authorization: "Bearer t" });
});

describe("health, logs and other routes", () => {
  it("GET /health is the health JSON; other methods 405 with Allow; unknown routes 404", async () => {
    const d = await door((await daemon()).url);
    expect(await d.client.health()).toMatchObject({ ok: true, daemon: { status: "running" } });
    const post = await d.client.request("/health", { method: "POST", body: "" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
    const missing = await d.client.request("/nope");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "not_found" } });
  });

  it("GET /health?wait= holds the answer while the daemon starts, and only then", async () => {
    let status: "starting" | "running" = "starting";
    const change = new ChangeSignal();
    const health = () => ({
      ok: status === "running",
      daemon: { status, pid: 1, restarts: 0 },
      heartbeat: { lastTick: null, lastSuccess: null },
      uptime: 0,
    });
    const d = await door((await daemon()).url, {
      health,
      healthChanged: (ms) => change.wait(ms),
    });
    // Without wait: at once, starting.
    expect(await d.client.health()).toMatchObject({ daemon: { status: "starting" } });
    // Held to its end when nothing changes.
    let t0 = Date.now();
    expect(await d.client.health(undefined, 120)).toMatchObject({ daemon: { status: "starting" } });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(110);
    // Answered when the status changes.
    t0 = Date.now();
    const held = d.client.health(undefined, 3_000);
    await until(() => change.waiting === 1);
    status = "running";
    change.notify();
    expect(await held).toMatchObject({ ok: true, daemon: { status: "running" } });
    expect(Date.now() - t0).toBeLessThan(1_000);
    // A running daemon is never held.
    t0 = Date.now();
    await d.client.health(undefined, 3_000);
    expect(Date.now() - t0).toBeLessThan(1_000);
    const bad = await d.client.request("/health?wait=soon");
    expect(bad.status).toBe(400);
  });

  it("parses wait: 0 when absent, a bounded number of ms, or a message naming the parameter", () => {
    expect(parseHealthWait(null)).toBe(0);
    expect(parseHealthWait("250")).toBe(250);
    for (const bad of ["-1", "1.5", "soon", "5001"]) {
      expect(parseHealthWait(bad)).toMatch(/query parameter "wait"/);
    }
  });

  it("GET /logs?tail= returns the end of the rotating log, reaching into the rotated file", async () => {
    const d = await door((await daemon()).url);
    const path = join(d.logDir, "sidecar.log");
    writeFileSync(`${path}.1`, "old line 1\nold line 2\n");
    writeFileSync(path, "new line 1\nnew line 2\n");
    expect(await d.client.logTail(1024)).toBe("old line 1\nold line 2\nnew line 1\nnew line 2\n");
    expect(await d.client.logTail(15)).toBe("new line 2\n");
    const bad = await d.client.request("/logs?tail=lots");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { code: "bad_request", message: expect.stringContaining('"tail"') },
    });
  });

  it("parses tail: a default, a bounded number of bytes, or a message naming the parameter", () => {
    expect(parseTail(null)).toBe(64 * 1024);
    expect(parseTail("100")).toBe(100);
    for (const bad of ["0", "-1", "1.5", "abc", String(2 * 1024 * 1024)]) {
      expect(parseTail(bad)).toMatch(/query parameter "tail"/);
    }
  });
});
