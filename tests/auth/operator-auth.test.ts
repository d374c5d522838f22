import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGN_IN_LIMIT } from "../../src/server/auth/lockout";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { type RedisServer, startRedisServer } from "../support/redis-server";

/**
 * Operator authentication over real HTTP against the production server, on both stores
 * (issue 22, items 5–7): the sign-in body is capped before it is read, bearer guesses share
 * the sign-in lock-out, and sign-out revokes the session it ends (a copied cookie dies too).
 */

interface Answer {
  status: number;
  json: { error?: { code: string; message: string } } & Record<string, unknown>;
  headers: Headers;
}

async function call(
  server: ClawrunServer,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(body ? { "content-type": "application/json" } : {}), ...headers },
    body,
    redirect: "manual",
  });
  const text = await res.text();
  let json: Answer["json"] = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    json = { text };
  }
  return { status: res.status, json, headers: res.headers };
}

const signIn = (server: ClawrunServer, secret: string) =>
  call(server, "POST", "/api/auth/login", { origin: server.url }, JSON.stringify({ secret }));

async function sessionCookie(server: ClawrunServer): Promise<string> {
  const res = await fetch(`${server.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url },
    body: JSON.stringify({ secret: server.secrets.admin }),
  });
  expect(res.status).toBe(200);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("clawrun_session="));
  return (cookie ?? "").split(";")[0] ?? "";
}

/**
 * POSTs a sign-in body that never ends on its own: `first`, then `chunk` every `intervalMs`
 * until the server answers or `maxBytes` went out (then the body ends, or with a declared
 * Content-Length the request is given up). `endedBeforeAnswer`: the server waited for it all.
 */
function streamSignIn(
  server: ClawrunServer,
  o: { declaredLength?: number; maxBytes: number; intervalMs: number },
): Promise<{ status: number; json: Answer["json"]; sent: number; endedBeforeAnswer: boolean }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      origin: server.url,
    };
    if (o.declaredLength !== undefined) headers["content-length"] = String(o.declaredLength);
    const req = httpRequest(`${server.url}/api/auth/login`, { method: "POST", headers });
    const chunk = Buffer.alloc(16 * 1024, "a");
    let sent = 0;
    let ended = false;
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => {
        text += d;
      });
      res.on("end", () => {
        req.destroy();
        let json: Answer["json"] = {};
        try {
          json = JSON.parse(text);
        } catch {
          json = { text };
        }
        resolve({ status: res.statusCode ?? 0, json, sent, endedBeforeAnswer: ended });
      });
    });
    req.on("error", (err) => {
      if (!answered) reject(err);
    });
    req.write('{"secret":"');
    sent += 11;
    const pump = () => {
      if (answered) return;
      if (sent >= o.maxBytes) {
        if (o.declaredLength === undefined) {
          ended = true;
          req.end('"}');
        } else {
          // The declared length never arrives: a server that waits for it never answers.
          setTimeout(() => {
            if (!answered) {
              req.destroy();
              resolve({ status: 0, json: {}, sent, endedBeforeAnswer: true });
            }
          }, 5_000);
        }
        return;
      }
      req.write(chunk);
      sent += chunk.length;
      setTimeout(pump, o.intervalMs);
    };
    pump();
  });
}

describe.each([
  ["SQLite", false, "bearer"],
  ["Redis", true, "sign-in"],
] as const)("%s store", (_name, useRedis, lockedBy) => {
  let redis: RedisServer | null = null;
  let server: ClawrunServer;
  /** A session signed in before the lock-out: reads with it keep working while locked. */
  let kept = "";

  beforeAll(async () => {
    redis = useRedis ? await startRedisServer() : null;
    server = await startClawrun({ env: redis ? { REDIS_URL: redis.url } : {} });
  });
  afterAll(async () => {
    await server?.stop();
    await redis?.stop();
  });

  describe("the sign-in body is capped", () => {
    it("a declared 100 MB body is refused 413 before it is sent", async () => {
      const r = await streamSignIn(server, {
        declaredLength: 100 * 1024 * 1024,
        maxBytes: 64 * 1024,
        intervalMs: 10,
      });
      expect(r.status, "the server waited for the declared body").toBe(413);
      expect(r.json.error?.code).toBe("payload_too_large");
      expect(r.json.error?.message).toMatch(/larger than \d+ bytes/);
    });

    it("a chunked body is refused 413 as soon as it passes the limit, without reading the rest", async () => {
      const r = await streamSignIn(server, { maxBytes: 8 * 1024 * 1024, intervalMs: 10 });
      expect(r.endedBeforeAnswer, "the server read the whole body before answering").toBe(false);
      expect(r.status).toBe(413);
      expect(r.json.error?.code).toBe("payload_too_large");
      expect(r.sent).toBeLessThan(8 * 1024 * 1024);
    });

    it("an oversized body changed nothing: no failure counted, sign-in works", async () => {
      const wrong = await signIn(server, "wrong");
      expect(wrong.json.error?.message).toContain(`${SIGN_IN_LIMIT.failures - 1} attempts left`);
      expect((await signIn(server, server.secrets.admin)).status).toBe(200);
    });
  });

  describe("sign-out revokes the session", () => {
    it("a cookie copied before sign-out no longer works (API and page); other sessions do", async () => {
      const copied = await sessionCookie(server);
      kept = await sessionCookie(server);
      expect((await call(server, "GET", "/api/sandbox", { cookie: copied })).status).toBe(200);

      const out = await call(server, "POST", "/api/auth/logout", {
        cookie: copied,
        origin: server.url,
      });
      expect(out.status).toBe(200);

      const after = await call(server, "GET", "/api/sandbox", { cookie: copied });
      expect(after.status).toBe(401);
      expect(after.json.error?.code).toBe("unauthenticated");
      expect(after.json.error?.message).toContain("signed out");
      const page = await call(server, "GET", "/", { cookie: copied });
      expect(new URL(page.headers.get("location") ?? "", server.url).pathname).toBe("/login");
      const mutation = await call(server, "POST", "/api/sandbox/start", {
        cookie: copied,
        origin: server.url,
      });
      expect(mutation.status).toBe(401);

      // Only that session ended: the operator's other one is untouched.
      expect((await call(server, "GET", "/api/sandbox", { cookie: kept })).status).toBe(200);
      // Signing out again with the dead copy is harmless.
      const again = await call(server, "POST", "/api/auth/logout", {
        cookie: copied,
        origin: server.url,
      });
      expect(again.status).toBe(200);
    });
  });

  describe(`bearer guesses share the sign-in lock-out (locked by ${lockedBy} failures)`, () => {
    it("after the limit, bearer tokens and sign-ins alike are answered 429, right or wrong", async () => {
      // A successful sign-in above cleared the count.
      for (let i = 1; i <= SIGN_IN_LIMIT.failures; i++) {
        const r =
          lockedBy === "bearer"
            ? await call(server, "GET", "/api/sandbox", { authorization: `Bearer guess-${i}` })
            : await signIn(server, `guess-${i}`);
        if (i < SIGN_IN_LIMIT.failures) {
          expect(r.status).toBe(401);
          expect(r.json.error?.code).toBe(lockedBy === "bearer" ? "invalid_token" : "wrong_secret");
        } else {
          expect(r.status).toBe(429);
          expect(r.json.error?.code).toBe("too_many_attempts");
        }
      }
      for (let i = 0; i < 5; i++) {
        const guess = await call(server, "POST", "/api/sandbox/start", {
          authorization: `Bearer more-${i}`,
        });
        expect(guess.status).toBe(429);
        expect(guess.json.error?.code).toBe("too_many_attempts");
        expect(Number(guess.headers.get("retry-after"))).toBeGreaterThan(14 * 60);
      }
      // Even the right secret is refused unchecked, or a 200 would tell a guesser it won.
      const right = await call(server, "GET", "/api/sandbox", {
        authorization: `Bearer ${server.secrets.admin}`,
      });
      expect(right.status).toBe(429);
      expect((await signIn(server, server.secrets.admin)).status).toBe(429);

      // Nothing was started by the refused guesses; a session from before still reads.
      const overview = await call(server, "GET", "/api/sandbox", { cookie: kept });
      expect(overview.status).toBe(200);
      expect((overview.json.instance as { status: string }).status).toBe("uninitialized");
    });
  });
});
