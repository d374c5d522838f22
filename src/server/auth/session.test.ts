import { describe, expect, it } from "vitest";
import { issueSession, SESSION_TTL_SECONDS, verifySession } from "./session";

const secrets = { clawrunSecret: "c".repeat(32), adminSecret: "a".repeat(32) };
const T = 1_800_000_000;

describe("operator sessions", () => {
  it("accepts its own token until it expires", async () => {
    const token = await issueSession(secrets, T);
    expect(await verifySession(token, secrets, T + 60)).toEqual({
      ok: true,
      expiresAt: (T + SESSION_TTL_SECONDS) * 1000,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(await verifySession(token, secrets, T + SESSION_TTL_SECONDS + 1)).toEqual({
      ok: false,
      reason: "expired",
    });
  });

  it.each([
    ["no cookie", undefined, "missing"],
    ["garbage", "not.a.jwt", "invalid"],
  ] as const)("rejects %s", async (_n, token, reason) => {
    expect(await verifySession(token, secrets, T)).toEqual({ ok: false, reason });
  });

  it("rejects a token signed with other secrets, so rotating ADMIN_SECRET signs everyone out", async () => {
    const token = await issueSession(secrets, T);
    expect((await verifySession(token, { ...secrets, adminSecret: "b".repeat(32) }, T)).ok).toBe(
      false,
    );
    expect((await verifySession(token, { ...secrets, clawrunSecret: "d".repeat(32) }, T)).ok).toBe(
      false,
    );
  });

  it("gives every session its own id (what sign-out revokes)", async () => {
    const a = await verifySession(await issueSession(secrets, T), secrets, T);
    const b = await verifySession(await issueSession(secrets, T), secrets, T);
    expect(a.ok && b.ok && a.id !== b.id).toBe(true);
  });

  it("rejects a tampered payload", async () => {
    const [h, p, s] = (await issueSession(secrets, T)).split(".");
    const payload = JSON.parse(Buffer.from(p as string, "base64url").toString());
    payload.exp += 10 * SESSION_TTL_SECONDS;
    const forged = `${h}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${s}`;
    expect(await verifySession(forged, secrets, T)).toEqual({ ok: false, reason: "invalid" });
  });
});
