import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type CredentialHolder,
  credentialHolder,
  holderIsCurrent,
} from "../../src/server/model-gateway/credential";
import { GATEWAY_USER_AGENT } from "../support/gateway-user-agent";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";
import {
  startVercelSandboxEmulator,
  type VercelSandboxEmulator,
} from "../support/vercel-sandbox-emulator";

/**
 * The sandbox's model credential rotates at every wake and dies when the sandbox sleeps, on
 * every provider, including Vercel's persistent mode, where a wake resumes the same sandbox
 * (same id). The credential is read from the daemon's own environment; the gateway's check
 * is the one its routes use.
 */
let h: LifecycleHarness | null = null;
let emulator: VercelSandboxEmulator;
beforeAll(async () => {
  emulator = await startVercelSandboxEmulator();
});
afterEach(async () => {
  await h?.stop();
  h = null;
});
afterAll(async () => {
  await emulator?.close();
});

const providers = [
  { name: "local", sandbox: {} },
  { name: "vercel snapshot mode", sandbox: { provider: "vercel", vercel: { mode: "snapshot" } } },
  {
    name: "vercel persistent mode",
    sandbox: { provider: "vercel", vercel: { mode: "persistent" } },
  },
];

describe.each(providers)("model credential rotation, $name", (p) => {
  it("is new at every wake, and refused once its sandbox sleeps or a later wake replaced it", async () => {
    h = await lifecycleHarness({
      config: {
        instance: { name: `rot-${p.name.replace(/\W+/g, "-")}` },
        agent: GATEWAY_USER_AGENT,
        sandbox: { activeDuration: 60, ...p.sandbox },
      },
      env: p.name === "local" ? {} : emulator.env,
    });
    const harness = h;
    const master = harness.params.source.CLAWRUN_SECRET as string;
    /** The gateway's own check: this sandbox, this boot, starting or running. */
    const live = async (holder: CredentialHolder) =>
      holderIsCurrent((await harness.ctx.store.state.get())?.value ?? null, holder);
    /** The credential in the running daemon's environment, as the gateway reads it. */
    const daemonCredential = async (): Promise<CredentialHolder> => {
      const sandbox = await harness.provider.get((await harness.status()).sandboxId as string);
      const out = await sandbox.runCommand("sh", [
        "-c",
        // Only this sandbox's daemon (its working directory is the sandbox root).
        'for p in $(pgrep -f createServer); do [ "$(readlink /proc/$p/cwd)" = "$(pwd -P)" ] && tr "\\0" "\\n" < /proc/$p/environ; done; true',
      ]);
      const credential = /CLAWRUN_MODEL_KEY=(\S+)/.exec(out.stdout)?.[1] ?? "";
      const holder = credentialHolder(master, credential);
      if (!holder)
        throw new Error(`no valid credential in the daemon's environment: ${out.stdout}`);
      return holder;
    };

    expect((await harness.manager.wake({ reason: "one", trigger: "operator" })).status).toBe(
      "running",
    );
    const first = await daemonCredential();
    expect(await live(first)).toBe(true);

    expect((await harness.manager.sleep("test")).status).toBe("sleeping");
    expect(await live(first)).toBe(false);

    expect((await harness.manager.wake({ reason: "two", trigger: "operator" })).status).toBe(
      "running",
    );
    const second = await daemonCredential();
    if (p.name === "vercel persistent mode") expect(second.sandboxId).toBe(first.sandboxId);
    else expect(second.sandboxId).not.toBe(first.sandboxId);
    expect(second.bootId).not.toBe(first.bootId);
    expect(await live(second)).toBe(true);
    expect(await live(first)).toBe(false);
  }, 90_000);
});
