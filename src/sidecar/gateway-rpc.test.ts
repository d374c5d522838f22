import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startTestDoor, type TestDoor } from "../../tests/support/door";
import { type FakeGateway, startFakeGateway } from "../../tests/support/fake-openclaw-gateway";
import { freePort } from "../../tests/support/free-port";
import type { GatewayRpcRequest } from "../protocol/gateway-rpc";
import { openclawConnectParams } from "../server/agents/openclaw/suspend";

/**
 * The door's `/gateway-rpc` (src/sidecar/gateway-rpc.ts over ws-client.ts) against a local
 * server speaking OpenClaw's documented gateway frames, written byte by byte
 * (tests/support/fake-openclaw-gateway.ts), through ClawRun's real client.
 */

const TOKEN = "gateway-token-for-tests";
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  opts: Partial<Parameters<typeof startFakeGateway>[0]> = {},
): Promise<{ gw: FakeGateway; door: TestDoor }> {
  const gw = await startFakeGateway({ token: TOKEN, ...opts });
  cleanups.push(() => gw.close());
  const door = await startTestDoor(`http://127.0.0.1:${gw.port}`);
  cleanups.push(() => door.close());
  return { gw, door };
}

const call = (
  method: string,
  params: Record<string, unknown>,
  token = TOKEN,
): GatewayRpcRequest => ({
  path: "/",
  connect: openclawConnectParams(token),
  method,
  params,
  timeoutMs: 5_000,
});

describe("the door's gateway RPC", () => {
  it("connects after the challenge with ClawRun's params, calls, and returns the response frame; never activity", async () => {
    const { gw, door } = await setup();
    const answer = await door.client.gatewayRpc(
      call("gateway.suspend.prepare", { requestId: "r1", terminalPolicy: "preserve" }),
    );
    expect(answer).toMatchObject({
      ok: true,
      payload: { status: "ready", suspensionId: expect.any(String) },
    });
    expect(gw.requests.map((r) => r.method)).toEqual(["connect", "gateway.suspend.prepare"]);
    expect(gw.requests[0]?.params).toMatchObject({
      minProtocol: 4,
      maxProtocol: 4,
      client: { id: "gateway-client", mode: "backend" },
      role: "operator",
      auth: { token: TOKEN },
    });
    expect(door.deliveries).toBe(0);
  });

  it("reads a hello over 64 KiB, answers a ping and joins a message split into continuation frames", async () => {
    const { gw, door } = await setup({ helloBytes: 200_000, pingFirst: true, fragmentBytes: 7 });
    const answer = await door.client.gatewayRpc(
      call("gateway.suspend.prepare", { requestId: "r1" }),
    );
    expect(answer).toMatchObject({ ok: true, payload: { status: "ready" } });
    await new Promise((r) => setTimeout(r, 50));
    expect(gw.pongs).toBe(2); // one ping before the hello, one before the answer
  });

  it("returns the gateway's refusal of the connect (a wrong token) as stage connect", async () => {
    const { gw, door } = await setup();
    const answer = await door.client.gatewayRpc(
      call("gateway.suspend.prepare", { requestId: "r1" }, "wrong"),
    );
    expect(answer).toMatchObject({
      ok: false,
      stage: "connect",
      error: { code: "INVALID_REQUEST", message: expect.stringContaining("unauthorized") },
    });
    expect(gw.requests.map((r) => r.method)).toEqual(["connect"]);
  });

  it("returns a refused call as stage call with the gateway's error fields", async () => {
    const { door } = await setup();
    await door.client.gatewayRpc(call("gateway.suspend.prepare", { requestId: "first" }));
    const second = await door.client.gatewayRpc(
      call("gateway.suspend.prepare", { requestId: "other" }),
    );
    expect(second).toMatchObject({
      ok: false,
      stage: "call",
      error: { code: "UNAVAILABLE", retryable: true, retryAfterMs: expect.any(Number) },
    });
  });

  it("is daemon_unreachable (DoorUnreachableError) when nothing listens", async () => {
    const door = await startTestDoor(`http://127.0.0.1:${await freePort()}`);
    cleanups.push(() => door.close());
    await expect(
      door.client.gatewayRpc(call("gateway.suspend.status", { suspensionId: "x" })),
    ).rejects.toMatchObject({
      name: "DoorUnreachableError",
      code: "daemon_unreachable",
    });
  });

  it("gives up after timeoutMs with 504 gateway_rpc_failed when the gateway never answers", async () => {
    const { door } = await setup({ silent: true });
    const started = Date.now();
    await expect(
      door.client.gatewayRpc({
        ...call("gateway.suspend.prepare", { requestId: "r" }),
        timeoutMs: 300,
      }),
    ).rejects.toThrow(/504 gateway_rpc_failed/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("is 504 gateway_rpc_failed when the daemon's port answers HTTP instead of upgrading", async () => {
    const http = createServer((_req, res) => res.writeHead(426).end("upgrade required"));
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    cleanups.push(async () => {
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    });
    const door = await startTestDoor(`http://127.0.0.1:${(http.address() as AddressInfo).port}`);
    cleanups.push(() => door.close());
    await expect(
      door.client.gatewayRpc(call("gateway.suspend.status", { suspensionId: "x" })),
    ).rejects.toThrow(/504 gateway_rpc_failed: websocket: the server answered 426/);
  });

  it("refuses a malformed request with 400 and opens no connection", async () => {
    const { gw, door } = await setup();
    const res = await door.client.request("/gateway-rpc", {
      method: "POST",
      body: JSON.stringify({ path: "no-slash", connect: {}, method: "x", timeoutMs: 10 }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { code: "bad_request", message: expect.stringContaining("path") },
    });
    const get = await door.client.request("/gateway-rpc");
    expect(get.status).toBe(405);
    expect(gw.requests).toEqual([]);
  });
});
