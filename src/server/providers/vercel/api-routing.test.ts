import { createServer } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { ProviderError } from "../types";
import { routeApiUrl, routeSandboxDomain, sdkFetch } from "./api-routing";

describe("routing the SDK through CLAWRUN_VERCEL_API_URL", () => {
  const base = "http://127.0.0.1:4010/proxy";

  it("maps the SDK's fixed API base, keeping path and query", () => {
    expect(routeApiUrl("https://vercel.com/api/v2/sandboxes?teamId=t&project=p", base)).toBe(
      `${base}/v2/sandboxes?teamId=t&project=p`,
    );
    expect(routeApiUrl("https://vercel.com/api/v2/sandboxes", null)).toBe(
      "https://vercel.com/api/v2/sandboxes",
    );
  });

  it("never sends the SDK's credentials to a host nobody configured", () => {
    expect(() => routeApiUrl("https://evil.example/api/v2/sandboxes", base)).toThrow(ProviderError);
    expect(() => routeApiUrl("https://vercel.com/apix", base)).toThrow(ProviderError);
  });

  it("maps sandbox port domains to <base>/__sandbox/<subdomain>", () => {
    expect(routeSandboxDomain("https://sb-abc-3001.vercel.run", base)).toBe(
      `${base}/__sandbox/sb-abc-3001`,
    );
    expect(routeSandboxDomain("https://sb-abc-3001.vercel.run", null)).toBe(
      "https://sb-abc-3001.vercel.run",
    );
    expect(() => routeSandboxDomain("https://sb.other.dev", base)).toThrow(ProviderError);
  });

  const seen: { url?: string; auth?: string; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      seen.push({ url: req.url, auth: req.headers.authorization, body });
      res.end("{}");
    });
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("the fetch it hands the SDK really goes there, with method, headers and body", async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const fetch = sdkFetch(`http://127.0.0.1:${port}/p`);
    const res = await fetch("https://vercel.com/api/v2/sandboxes/x/stop?teamId=t", {
      method: "POST",
      headers: { authorization: "Bearer tok" },
      body: '{"a":1}',
    });
    expect(res.status).toBe(200);
    expect(seen).toEqual([
      { url: "/p/v2/sandboxes/x/stop?teamId=t", auth: "Bearer tok", body: '{"a":1}' },
    ]);
    expect(sdkFetch(null)).toBe(globalThis.fetch);
  });
});
