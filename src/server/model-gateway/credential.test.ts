import { describe, expect, it } from "vitest";
import type { InstanceStatus } from "../domain/instance-state";
import { credentialHolder, holderIsCurrent, modelCredential, newBootId } from "./credential";

const MASTER = "m".repeat(40);
const HOLDER = { sandboxId: "clawrun-agent", bootId: "b00t" };

describe("model credential", () => {
  it("names its holder and is refused when any part is changed", () => {
    const cred = modelCredential(MASTER, HOLDER);
    expect(credentialHolder(MASTER, cred)).toEqual(HOLDER);
    expect(credentialHolder("o".repeat(40), cred)).toBeNull();
    const [prefix, boot, mac] = cred.split(".");
    expect(credentialHolder(MASTER, `${prefix}.other.${mac}`)).toBeNull();
    expect(credentialHolder(MASTER, `${prefix}.${boot}.${mac}x`)).toBeNull();
    expect(credentialHolder(MASTER, `${prefix}.${boot}`)).toBeNull();
    expect(credentialHolder(MASTER, `${cred}.extra`)).toBeNull();
    expect(credentialHolder(MASTER, "sk-real-key")).toBeNull();
  });

  it("changes at every boot of the same sandbox (a resumed sandbox keeps its id)", () => {
    const boots = new Set(Array.from({ length: 20 }, newBootId));
    expect(boots.size).toBe(20);
    for (const b of boots) expect(b).toMatch(/^[A-Za-z0-9_-]{16}$/);
    const creds = new Set(
      [...boots].map((bootId) => modelCredential(MASTER, { ...HOLDER, bootId })),
    );
    expect(creds.size).toBe(20);
  });
});

describe("holderIsCurrent", () => {
  const state = (status: InstanceStatus, sandboxId: string | null, bootId: string | null) => ({
    status,
    sandboxId,
    bootId,
  });
  it.each<[string, ReturnType<typeof state> | null, boolean]>([
    ["running, same sandbox and boot", state("running", "clawrun-agent", "b00t"), true],
    [
      "starting (the daemon may call its model while it starts)",
      state("starting", "clawrun-agent", "b00t"),
      true,
    ],
    ["the same sandbox resumed at a later wake", state("running", "clawrun-agent", "next"), false],
    ["another sandbox", state("running", "sbx_other", "b00t"), false],
    ["snapshotting", state("snapshotting", "clawrun-agent", "b00t"), false],
    ["stopping", state("stopping", "clawrun-agent", "b00t"), false],
    ["asleep", state("sleeping", null, null), false],
    ["failed", state("failed", null, null), false],
    ["no state at all", null, false],
  ])("%s -> %s", (_name, s, expected) => {
    expect(holderIsCurrent(s, HOLDER)).toBe(expected);
  });
});
