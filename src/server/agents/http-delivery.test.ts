import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { doorsForTests } from "../../../tests/support/door";
import { freePort } from "../../../tests/support/free-port";
import { parseJsonText, postToDaemon } from "./http-delivery";

// Every agent's delivery (command, echo, OpenClaw, ZeroClaw) goes through postToDaemon, so how
// a failure is sorted — unreachable (a lifecycle fact) or a refusal counted against the
// message — is tested here once, through the sidecar's real door.

const doors = doorsForTests();
let server: Server | undefined;
afterEach(async () => {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

/** A throwaway daemon answering every POST with 201 and its own body echoed; `silent` never answers. */
async function daemon(silent = false): Promise<string> {
  server = createServer((req, res) => {
    if (silent) return;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () =>
      res.writeHead(201, { "content-type": "text/plain" }).end(Buffer.concat(chunks)),
    );
  });
  const port = await freePort();
  await new Promise<void>((r) => server?.listen(port, "127.0.0.1", () => r()));
  return `http://127.0.0.1:${port}`;
}

const post = (signal: AbortSignal) => ({ method: "POST", body: "hello", signal });

describe("postToDaemon", () => {
  it("returns the daemon's answer whole: status, text and content type", async () => {
    const door = await doors.to(await daemon());
    expect(await postToDaemon(door, "/x", post(AbortSignal.timeout(5_000)), "agent")).toEqual({
      ok: true,
      status: 201,
      text: "hello",
      contentType: "text/plain",
    });
  });

  it("sorts nobody answering as unreachable, naming the daemon", async () => {
    const door = await doors.to(`http://127.0.0.1:${await freePort()}`);
    await expect(
      postToDaemon(door, "/x", post(AbortSignal.timeout(5_000)), "zeroclaw"),
    ).rejects.toMatchObject({
      name: "AgentUnreachableError",
      message: expect.stringMatching(/^zeroclaw unreachable at /),
    });
  });

  it("sorts no answer before the timeout as a refusal with no status", async () => {
    const door = await doors.to(await daemon(true));
    await expect(
      postToDaemon(door, "/x", post(AbortSignal.timeout(200)), "openclaw gateway"),
    ).rejects.toMatchObject({
      name: "AgentDeliveryError",
      daemonStatus: null,
      message: expect.stringMatching(/^openclaw gateway at .* did not answer in time/),
    });
  });
});

describe("parseJsonText", () => {
  it("parses JSON and says what the start of anything else was", () => {
    expect(parseJsonText('{"a":1}')).toEqual({ ok: true, json: { a: 1 } });
    expect(parseJsonText("<html>")).toEqual({ ok: false, problem: "not JSON: <html>" });
  });
});
