import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { SignJWT } from "jose";
import { freePort } from "./free-port";

/**
 * A local stand-in for Upstash QStash, built from its documented HTTP API (QStash cannot be
 * reached from tests): `POST /v2/publish/<destination>` with `Authorization: Bearer <token>`,
 * `Upstash-Not-Before` (unix seconds) and `Upstash-Forward-*` headers, answered with
 * `{ messageId }`; `DELETE /v2/messages/<id>` cancels. At the not-before time it POSTs the body
 * to the destination signed like QStash: an `Upstash-Signature` JWT (HS256 with the current
 * signing key; iss "Upstash", sub the destination, exp/nbf/iat, jti, and `body` the base64url
 * SHA-256 of the body).
 */

export interface Published {
  messageId: string;
  destination: string;
  body: string;
  /** Upstash-Not-Before in seconds, or null. */
  notBefore: number | null;
  forwardedHeaders: Record<string, string>;
  publishedAt: number;
}

export interface Delivery {
  messageId: string;
  at: number;
  status: number;
  body: string;
}

export interface FakeQStash {
  url: string;
  token: string;
  currentSigningKey: string;
  nextSigningKey: string;
  /** The environment that points ClawRun at this server. */
  env: Record<string, string>;
  published: Published[];
  cancelled: string[];
  deliveries: Delivery[];
  /** Signs like QStash (tests also forge with other keys). */
  sign(destination: string, body: string, key?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startFakeQStash(): Promise<FakeQStash> {
  const token = `qstash_${randomUUID()}`;
  const currentSigningKey = `sig_${randomUUID().replaceAll("-", "")}`;
  const nextSigningKey = `sig_${randomUUID().replaceAll("-", "")}`;
  const published: Published[] = [];
  const cancelled: string[] = [];
  const deliveries: Delivery[] = [];
  const timers = new Map<string, NodeJS.Timeout>();

  const sign = async (destination: string, body: string, key = currentSigningKey) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      body: createHash("sha256").update(body).digest("base64url"),
    })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer("Upstash")
      .setSubject(destination)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + 300)
      .setJti(`jwt_${randomUUID()}`)
      .sign(new TextEncoder().encode(key));
  };

  const deliver = async (m: Published) => {
    timers.delete(m.messageId);
    const signature = await sign(m.destination, m.body);
    let status = 0;
    try {
      const res = await fetch(m.destination, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "upstash-signature": signature,
          "upstash-message-id": m.messageId,
          ...m.forwardedHeaders,
        },
        body: m.body,
      });
      status = res.status;
    } catch {
      status = 0;
    }
    deliveries.push({ messageId: m.messageId, at: Date.now(), status, body: m.body });
  };

  const server: Server = createServer(async (req, res) => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${token}`)
      return answer(401, { error: "Unauthorized" });
    const path = decodeURIComponent(req.url ?? "");
    const body = await readBody(req);
    if (req.method === "POST" && path.startsWith("/v2/publish/")) {
      const destination = path.slice("/v2/publish/".length);
      const notBeforeRaw = req.headers["upstash-not-before"];
      const notBefore = typeof notBeforeRaw === "string" ? Number(notBeforeRaw) : null;
      const forwardedHeaders: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (k.startsWith("upstash-forward-") && typeof v === "string")
          forwardedHeaders[k.slice("upstash-forward-".length)] = v;
      }
      const m: Published = {
        messageId: `msg_${randomUUID()}`,
        destination,
        body,
        notBefore,
        forwardedHeaders,
        publishedAt: Date.now(),
      };
      published.push(m);
      const delay = notBefore === null ? 0 : Math.max(0, notBefore * 1000 - Date.now());
      timers.set(
        m.messageId,
        setTimeout(() => void deliver(m), delay),
      );
      return answer(201, { messageId: m.messageId });
    }
    const cancel = /^\/v2\/messages\/([^/?]+)$/.exec(path);
    if (req.method === "DELETE" && cancel?.[1]) {
      const id = cancel[1];
      const timer = timers.get(id);
      if (!timer) return answer(404, { error: `message ${id} not found` });
      clearTimeout(timer);
      timers.delete(id);
      cancelled.push(id);
      return answer(200, { cancelled: 1 });
    }
    answer(404, { error: `no route ${req.method} ${path}` });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    token,
    currentSigningKey,
    nextSigningKey,
    env: {
      QSTASH_URL: url,
      QSTASH_TOKEN: token,
      QSTASH_CURRENT_SIGNING_KEY: currentSigningKey,
      QSTASH_NEXT_SIGNING_KEY: nextSigningKey,
    },
    published,
    cancelled,
    deliveries,
    sign,
    close: async () => {
      for (const t of timers.values()) clearTimeout(t);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
