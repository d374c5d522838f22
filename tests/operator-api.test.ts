import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "./support/clawrun-server";
import { waitFor } from "./support/free-port";

/**
 * The operator API's gatekeeping over real HTTP against the production server: who may read,
 * who may act, and that a refused request changes nothing.
 */

const READS = [
  "/api/sandbox",
  "/api/sandbox/events",
  "/api/sandbox/snapshots",
  "/api/sandbox/inbox",
  "/api/sandbox/logs",
  "/api/sandbox/config",
] as const;

const MUTATIONS: { method: "POST" | "DELETE"; path: string; body?: unknown }[] = [
  { method: "POST", path: "/api/sandbox/start", body: {} },
  { method: "POST", path: "/api/sandbox/start", body: { fresh: true } },
  { method: "POST", path: "/api/sandbox/stop" },
  { method: "POST", path: "/api/sandbox/snapshot" },
  { method: "DELETE", path: "/api/sandbox/snapshots/snap-does-not-exist" },
  { method: "POST", path: "/api/sandbox/inbox/msg-1/retry" },
];

const ALL = [
  ...READS.map((path) => ({ method: "GET" as const, path, body: undefined })),
  ...MUTATIONS,
];

let server: ClawrunServer;
let sessionCookie: string;

interface ErrorBody {
  error: { code: string; message: string };
}

async function call(
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: unknown; rawBody?: string } = {},
): Promise<{ status: number; json: unknown; headers: Headers }> {
  const body = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...opts.headers,
    },
    body,
    redirect: "manual",
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, json, headers: res.headers };
}

const bearer = () => ({ authorization: `Bearer ${server.secrets.admin}` });
const ours = () => ({ origin: server.url });

async function overviewStatus(): Promise<string> {
  const r = await call("GET", "/api/sandbox", { headers: bearer() });
  return (r.json as { instance: { status: string } }).instance.status;
}

function expectError(r: { status: number; json: unknown }, status: number, code?: string) {
  expect(r.status, JSON.stringify(r.json)).toBe(status);
  const body = r.json as ErrorBody;
  expect(typeof body.error.message).toBe("string");
  expect(body.error.message.length).toBeGreaterThan(5);
  if (code) expect(body.error.code).toBe(code);
}

beforeAll(async () => {
  server = await startClawrun({ timings: { heartbeatIntervalMs: 1000 } });
  const res = await fetch(`${server.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url },
    body: JSON.stringify({ secret: server.secrets.admin }),
  });
  expect(res.status).toBe(200);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("clawrun_session="));
  expect(cookie).toMatch(/HttpOnly/i);
  expect(cookie).toMatch(/SameSite=Lax/i);
  sessionCookie = (cookie ?? "").split(";")[0] ?? "";
  expect(sessionCookie.length).toBeGreaterThan("clawrun_session=".length + 20);
});

afterAll(async () => {
  await server?.stop();
});

describe("without credentials", () => {
  it.each(ALL)("$method $path $body → 401", async (r) => {
    expectError(await call(r.method, r.path, { body: r.body, headers: ours() }), 401);
  });

  it("a tampered session cookie is refused like none", async () => {
    const r = await call("GET", "/api/sandbox", {
      headers: { cookie: `${sessionCookie.slice(0, -4)}AAAA` },
    });
    expectError(r, 401, "unauthenticated");
  });
});

// A wrong bearer is a guess of ADMIN_SECRET and counts toward the sign-in lock-out (10 per 15
// minutes, tests/auth/operator-auth.test.ts): this file stays below it (7 here, 1 sign-in).
const WRONG_BEARER = [
  ...READS.map((path) => ({ method: "GET" as const, path, body: undefined })),
  { method: "POST" as const, path: "/api/sandbox/start", body: {} },
];

describe("with a wrong bearer token", () => {
  it.each(WRONG_BEARER)("$method $path $body → 401", async (r) => {
    const res = await call(r.method, r.path, {
      body: r.body,
      headers: { authorization: "Bearer not-the-admin-secret" },
    });
    expectError(res, 401, "invalid_token");
  });

  it("a wrong bearer is refused even beside a valid session cookie", async () => {
    const r = await call("GET", "/api/sandbox", {
      headers: { authorization: "Bearer nope", cookie: sessionCookie },
    });
    expectError(r, 401, "invalid_token");
  });
});

describe("with a session cookie", () => {
  it.each(READS)("GET %s → 200 (reads need no Origin)", async (path) => {
    const r = await call("GET", path, { headers: { cookie: sessionCookie } });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
  });

  it.each(MUTATIONS)("$method $path $body from a foreign Origin → 403", async (r) => {
    const res = await call(r.method, r.path, {
      body: r.body,
      headers: { cookie: sessionCookie, origin: "https://evil.example" },
    });
    expectError(res, 403, "forbidden_origin");
    expect((res.json as ErrorBody).error.message).toContain("https://evil.example");
  });

  it.each(MUTATIONS)("$method $path $body without an Origin → 403", async (r) => {
    const res = await call(r.method, r.path, { body: r.body, headers: { cookie: sessionCookie } });
    expectError(res, 403, "forbidden_origin");
  });

  it("a foreign Referer does not stand in for our Origin", async () => {
    const res = await call("POST", "/api/sandbox/start", {
      body: {},
      headers: { cookie: sessionCookie, referer: "https://evil.example/page" },
    });
    expectError(res, 403, "forbidden_origin");
  });

  it("the refused mutations changed nothing", async () => {
    expect(await overviewStatus()).toBe("uninitialized");
    const events = await call("GET", "/api/sandbox/events", { headers: bearer() });
    expect((events.json as { events: unknown[] }).events).toEqual([]);
    const snaps = await call("GET", "/api/sandbox/snapshots", { headers: bearer() });
    expect((snaps.json as { snapshots: unknown[] }).snapshots).toEqual([]);
  });

  it("a same-origin mutation passes the CSRF check (and meets the state rules)", async () => {
    const res = await call("POST", "/api/sandbox/stop", {
      headers: { cookie: sessionCookie, origin: server.url },
    });
    expectError(res, 409, "not_running");
    expect((res.json as ErrorBody).error.message).toContain("uninitialized");
  });
});

describe("bad input → 400 naming the field, nothing started", () => {
  it.each([
    ['{"fresh":"yes"}', "fresh"],
    ['{"snapshotId":""}', "snapshotId"],
    ['{"snapshotId":42}', "snapshotId"],
    ['{"bogus":true}', "bogus"],
    ["{not json", "body"],
  ])("POST /api/sandbox/start %s", async (raw, field) => {
    const r = await call("POST", "/api/sandbox/start", { rawBody: raw, headers: bearer() });
    expectError(r, 400);
    expect((r.json as ErrorBody).error.message).toContain(field);
  });

  it.each(["0", "1001", "abc", "2.5"])("GET /api/sandbox/events?limit=%s", async (limit) => {
    const r = await call("GET", `/api/sandbox/events?limit=${limit}`, { headers: bearer() });
    expectError(r, 400, "invalid_query");
    expect((r.json as ErrorBody).error.message).toContain("limit");
  });

  it.each([
    ["{}", "secret"],
    ['{"secret":""}', "secret"],
    ['{"secret":"x","extra":1}', "secret"],
    ["nope", "body"],
  ])("POST /api/auth/login %s", async (raw, field) => {
    const r = await call("POST", "/api/auth/login", { rawBody: raw, headers: ours() });
    expectError(r, 400);
    expect((r.json as ErrorBody).error.message).toContain(field);
  });

  it("still uninitialized", async () => {
    expect(await overviewStatus()).toBe("uninitialized");
  });
});

describe("sign-in and sign-out", () => {
  it("refuses a sign-in from a foreign Origin without counting or setting a cookie", async () => {
    const r = await call("POST", "/api/auth/login", {
      body: { secret: server.secrets.admin },
      headers: { origin: "https://evil.example" },
    });
    expectError(r, 403, "forbidden_origin");
    expect(r.headers.getSetCookie()).toEqual([]);
  });

  it("refuses a sign-in without an Origin", async () => {
    const r = await call("POST", "/api/auth/login", { body: { secret: server.secrets.admin } });
    expectError(r, 403, "forbidden_origin");
  });

  it("a wrong secret is refused with the attempts left", async () => {
    const r = await call("POST", "/api/auth/login", { body: { secret: "wrong" }, headers: ours() });
    expectError(r, 401, "wrong_secret");
    expect((r.json as ErrorBody).error.message).toMatch(/\d+ attempts? left/);
    expect(r.headers.getSetCookie()).toEqual([]);
  });

  it("sign-out from a foreign Origin is refused", async () => {
    const r = await call("POST", "/api/auth/logout", {
      headers: { cookie: sessionCookie, origin: "https://evil.example" },
    });
    expectError(r, 403, "forbidden_origin");
  });

  it("sign-out clears the cookie", async () => {
    // Its own session: sign-out revokes the one it ends, and the tests below use sessionCookie.
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ secret: server.secrets.admin }),
    });
    const own = (login.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
    const r = await call("POST", "/api/auth/logout", {
      headers: { cookie: own, origin: server.url },
    });
    expect(r.status).toBe(200);
    const cleared = r.headers.getSetCookie().find((c) => c.startsWith("clawrun_session="));
    expect(cleared).toBeDefined();
    expect(cleared?.split(";")[0]).toBe("clawrun_session=");
    expect(cleared).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);
  });
});

describe("pages", () => {
  it("/ redirects to /login without a session", async () => {
    const r = await call("GET", "/");
    expect([302, 303, 307, 308]).toContain(r.status);
    expect(new URL(r.headers.get("location") ?? "", server.url).pathname).toBe("/login");
  });

  it("/ redirects to /login with a forged session", async () => {
    const r = await call("GET", "/", { headers: { cookie: "clawrun_session=forged.token.value" } });
    expect(new URL(r.headers.get("location") ?? "", server.url).pathname).toBe("/login");
  });

  it("/ renders the dashboard with a session; /login then sends to /", async () => {
    const page = await call("GET", "/", { headers: { cookie: sessionCookie } });
    expect(page.status).toBe(200);
    expect(String(page.json)).toContain("Dashboard · ClawRun");
    const login = await call("GET", "/login", { headers: { cookie: sessionCookie } });
    expect(new URL(login.headers.get("location") ?? "", server.url).pathname).toBe("/");
  });
});

describe("with the admin bearer", () => {
  it.each(READS)("GET %s → 200", async (path) => {
    const r = await call("GET", path, { headers: bearer() });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
  });

  it("actions the state does not allow answer 409/404 in words", async () => {
    expectError(await call("POST", "/api/sandbox/stop", { headers: bearer() }), 409, "not_running");
    expectError(
      await call("POST", "/api/sandbox/snapshot", { headers: bearer() }),
      409,
      "not_running",
    );
    expectError(
      await call("DELETE", "/api/sandbox/snapshots/snap-nope", { headers: bearer() }),
      404,
      "not_found",
    );
    expectError(
      await call("POST", "/api/sandbox/inbox/msg-nope/retry", { headers: bearer() }),
      404,
      "not_found",
    );
  });

  it("start → 202 with the transition, then running; snapshot and stop → 202", async () => {
    const start = await call("POST", "/api/sandbox/start", { body: {}, headers: bearer() });
    expect(start.status).toBe(202);
    expect(start.json).toEqual({ action: "start", from: "uninitialized", to: "creating" });
    await waitFor("running", async () => (await overviewStatus()) === "running", 30_000, 200);

    const again = await call("POST", "/api/sandbox/start", { body: {}, headers: bearer() });
    expectError(again, 409, "already_running");

    const snap = await call("POST", "/api/sandbox/snapshot", { headers: bearer() });
    expect(snap.status).toBe(202);
    await waitFor(
      "a snapshot",
      async () => {
        const r = await call("GET", "/api/sandbox/snapshots", { headers: bearer() });
        return (r.json as { snapshots: unknown[] }).snapshots.length === 1;
      },
      30_000,
      200,
    );

    const stop = await call("POST", "/api/sandbox/stop", { headers: bearer() });
    expect(stop.status).toBe(202);
    expect(stop.json).toEqual({ action: "stop", from: "running", to: "snapshotting" });
    await waitFor("sleeping", async () => (await overviewStatus()) === "sleeping", 30_000, 200);
  }, 90_000);
});
