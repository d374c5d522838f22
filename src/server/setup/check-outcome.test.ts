import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { checkFailure } from "./check-outcome";

describe("checkFailure", () => {
  it("calls a timeout unknown, not a failure (a server that accepts and never answers)", async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const { port } = silent.address() as { port: number };
    const err = await fetch(`http://127.0.0.1:${port}/`, {
      signal: AbortSignal.timeout(100),
    }).catch((e: unknown) => e);
    silent.close();
    expect(checkFailure(err)).toMatchObject({ ok: false, unknown: true });
  });

  it("keeps a real failure a failure, with its message", () => {
    expect(checkFailure(new Error("HTTP 404 from x"))).toEqual({
      ok: false,
      detail: "HTTP 404 from x",
    });
  });
});
