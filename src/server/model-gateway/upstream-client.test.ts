import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepAliveUpstream } from "./upstream-client";

/** The gateway's upstream client against a real local HTTP server. */
let server: Server;
let base: string;
let connections = 0;
const seen: { headers: Record<string, unknown>; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      seen.push({ headers: req.headers, body });
      if (req.url === "/slow") return; // never answers
      res.writeHead(req.url === "/limited" ? 429 : 200, {
        "content-type": "application/json",
        "retry-after": "3",
      });
      res.end(JSON.stringify({ echo: body }));
    });
  });
  server.on("connection", () => {
    connections++;
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe("keepAliveUpstream", () => {
  it("reuses one connection for calls one after another", async () => {
    const post = keepAliveUpstream();
    const before = connections;
    for (let i = 0; i < 5; i++) {
      const res = await post(`${base}/ok`, {
        headers: { "content-type": "application/json", authorization: "Bearer k" },
        body: JSON.stringify({ i }),
        signal: AbortSignal.timeout(5_000),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ echo: JSON.stringify({ i }) });
    }
    expect(connections - before).toBe(1);
    expect(seen.at(-1)?.headers.authorization).toBe("Bearer k");
  });

  it("answers an error status with its headers and body", async () => {
    const res = await keepAliveUpstream()(`${base}/limited`, {
      headers: {},
      body: "{}",
      signal: AbortSignal.timeout(5_000),
    });
    expect(res.status).toBe(429);
    expect(res.ok).toBe(false);
    expect(res.headers.get("retry-after")).toBe("3");
    expect(await res.text()).toBe(JSON.stringify({ echo: "{}" }));
  });

  it("rejects when aborted before the answer", async () => {
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    await expect(
      keepAliveUpstream()(`${base}/slow`, { headers: {}, body: "{}", signal: abort.signal }),
    ).rejects.toThrow();
  });
});
