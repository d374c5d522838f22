import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startTestDoor, type TestDoor } from "../../../tests/support/door";
import { freePort } from "../../../tests/support/free-port";
import { deliverOverHttp } from "../agents/http-delivery";
import { SidecarClient } from "./sidecar-client";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function daemonAnswering(status: number, body: string): Promise<string> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(status, { "content-type": "application/json" }).end(body));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function door(daemonUrl: string): Promise<TestDoor> {
  const d = await startTestDoor(daemonUrl);
  cleanups.push(() => d.close());
  return d;
}

const MESSAGE = { id: "m1", conversation: "c1", text: "hi" };
const signal = () => AbortSignal.timeout(5_000);

describe("SidecarClient", () => {
  it("rejects with DoorUnreachableError (no code) when nobody answers at the sidecar's port", async () => {
    const port = await freePort();
    const client = new SidecarClient(
      { id: "sbx_gone", domain: () => `http://127.0.0.1:${port}` },
      "some-secret-0123456789",
    );
    await expect(client.health(signal())).rejects.toMatchObject({
      name: "DoorUnreachableError",
      code: null,
      message: expect.stringContaining("sbx_gone's sidecar did not answer"),
    });
    await expect(client.fetch("/message", { method: "POST", body: "x" })).rejects.toMatchObject({
      name: "DoorUnreachableError",
    });
  });

  it("a door that refuses the signature (another secret) is not the daemon's answer", async () => {
    const d = await door(await daemonAnswering(200, '{"reply":"x"}'));
    const wrong = new SidecarClient(
      { id: "sbx_x", domain: () => d.url },
      "not-the-door-secret-0123",
    );
    await expect(wrong.fetch("/message", { method: "POST", body: "x" })).rejects.toMatchObject({
      name: "DoorUnreachableError",
      code: "unauthorized",
    });
    await expect(wrong.health()).rejects.toThrow(/health answered 401: .*x-clawrun-signature/);
  });
});

describe("agent delivery through the door keeps unreachable apart from refused", () => {
  it("nothing on the daemon's port → AgentUnreachableError (not an attempt against the message)", async () => {
    const d = await door(`http://127.0.0.1:${await freePort()}`);
    await expect(
      deliverOverHttp(d.client, "/message", MESSAGE, "json", signal()),
    ).rejects.toMatchObject({
      name: "AgentUnreachableError",
      message: expect.stringContaining("daemon_unreachable"),
    });
  });

  it.each([
    [500, '{"error":"boom"}'],
    [401, '{"error":{"code":"unauthorized","message":"the daemon\'s own"}}'],
    [502, '{"error":{"code":"daemon_unreachable","message":"pretending"}}'],
  ])("the daemon's own %i → AgentDeliveryError with its status", async (status, body) => {
    const d = await door(await daemonAnswering(status, body));
    await expect(
      deliverOverHttp(d.client, "/message", MESSAGE, "json", signal()),
    ).rejects.toMatchObject({ name: "AgentDeliveryError", daemonStatus: status });
  });

  it("a 2xx JSON reply is the agent's answer", async () => {
    const d = await door(await daemonAnswering(200, '{"reply":"hello","count":2}'));
    expect(await deliverOverHttp(d.client, "/message", MESSAGE, "json", signal())).toEqual({
      reply: "hello",
      details: { count: 2 },
    });
  });
});
