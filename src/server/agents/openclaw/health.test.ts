import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { doorsForTests } from "../../../../tests/support/door";
import { freePort } from "../../../../tests/support/free-port";
import { probeOpenClawReady } from "./health";

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(null)));
  server = null;
});

/** A gateway answering /readyz as docs/gateway/health.md describes, ready or not. */
async function gateway(ready: boolean): Promise<{ url: string; paths: string[] }> {
  const paths: string[] = [];
  server = createServer((req, res) => {
    paths.push(req.url ?? "");
    if (req.url !== "/readyz") return void res.writeHead(404).end();
    res
      .writeHead(ready ? 200 : 503, { "content-type": "application/json" })
      .end(JSON.stringify({ ready, failing: ready ? [] : ["startup"] }));
  });
  const port = await freePort();
  await new Promise<void>((r) => server?.listen(port, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${port}`, paths };
}

const doors = doorsForTests();

describe("probeOpenClawReady (through the sidecar's door)", () => {
  it("is true only when /readyz answers 200", async () => {
    const up = await gateway(true);
    expect(await probeOpenClawReady(await doors.to(up.url), AbortSignal.timeout(2_000))).toBe(true);
    expect(up.paths).toEqual(["/readyz"]);
  });

  it("is false while /readyz answers 503", async () => {
    const starting = await gateway(false);
    expect(await probeOpenClawReady(await doors.to(starting.url), AbortSignal.timeout(2_000))).toBe(
      false,
    );
  });

  it("is false when nothing listens", async () => {
    const port = await freePort();
    expect(
      await probeOpenClawReady(
        await doors.to(`http://127.0.0.1:${port}`),
        AbortSignal.timeout(2_000),
      ),
    ).toBe(false);
  });
});
