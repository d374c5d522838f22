import { expect } from "vitest";
import type { NetworkPolicy } from "../../../src/config/schema";
import type {
  CreateSandboxOptions,
  ManagedSandbox,
  SandboxProvider,
} from "../../../src/server/providers/types";
import { processTree } from "./contract-programs";

/**
 * What kind of sandbox a provider makes, which decides what the suite can observe from here:
 * - "host-directory" (local): a directory and process groups on this machine. A handle
 *   re-reads the truth on every access; every path that leaves the root, through symlinks
 *   too, is PathEscapeError; a stopped sandbox's port refuses connections; roots differ.
 * - "remote-vm" (vercel, here through its emulator): a VM behind an API. A handle shows the
 *   provider's last answer (provider.get re-reads); the provider refuses paths that leave the
 *   root lexically (PathEscapeError), while symlinks resolve inside the VM, out of its sight
 *   (they are refused, by the VM or the emulator, with whatever error); a stopped sandbox's
 *   URL answers with an error status; every sandbox may have the same root path.
 */
export type SandboxKind = "host-directory" | "remote-vm";

/** What a provider brings to run the contract suite against itself. */
export interface ProviderContractHarness {
  name: string;
  kind: SandboxKind;
  /**
   * A provider object over the suite's backing state. Called again to simulate a server
   * restart: the new object must see everything the previous one made.
   */
  makeProvider(): SandboxProvider;
  /** Creates a sandbox from a separate OS process that exits right after (the server died). */
  createFromAnotherProcess(
    opts: CreateSandboxOptions,
    setup: { files: { path: string; content: string }[]; cmd: string; args: string[] },
  ): Promise<string>;
  /** Short native TTL for the expiry tests; long enough to create a sandbox and start a server. */
  ttlMs: number;
  /** The node binary as seen inside the sandbox. */
  node: string;
  /** Where test servers in the sandbox listen so that domain() reaches them. */
  listenHost: string;
  /** Network policies this provider cannot enforce and must refuse. */
  unsupportedPolicies: NetworkPolicy[];
  /** Whether a pid reported from inside the sandbox is still a live process, where observable. */
  hostProcessAlive?(pid: number): boolean;
  /**
   * Environment the platform itself gives sandbox processes besides the provider's baseEnv
   * (the Vercel emulator maps ports through CLAWRUN_PORT_<n>, as the local provider does).
   */
  platformEnv?(sandbox: ManagedSandbox): Promise<Record<string, string>>;
  cleanup?(): Promise<void>;
}

export const PORTS = [3000, 3001];

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms: number,
) {
  const until = Date.now() + ms;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`, { cause: lastError });
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * What the port serves. Rejects when nothing does: the connection is refused (a port on this
 * machine) or the platform's edge answers with an error status (a remote sandbox's URL).
 */
export async function fetchText(url: string): Promise<string> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  const body = await res.text();
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${body.slice(0, 200)}`);
  return body;
}

/** Shared helpers of the contract tests; `created` sandboxes are stopped after each test. */
export function makeContractKit(h: ProviderContractHarness) {
  const provider = h.makeProvider();
  const created: ManagedSandbox[] = [];
  const create = async (opts: Partial<CreateSandboxOptions> = {}) => {
    const sandbox = await provider.create({ timeoutMs: 120_000, ports: PORTS, ...opts });
    created.push(sandbox);
    return sandbox;
  };
  const text = async (s: ManagedSandbox, path: string) => (await s.readFile(path))?.toString();
  const sh = (s: ManagedSandbox, script: string) => s.runCommand("sh", ["-c", script]);

  /** Starts parent → child → grandchild (an HTTP server on port 3000) and waits for it. */
  async function startTree(s: ManagedSandbox, reply = "pong") {
    await s.writeFiles(processTree(h.node, h.listenHost));
    await s.runCommand({ cmd: "sh", args: ["parent.sh"], env: { REPLY: reply }, detached: true });
    await waitFor("the server in the sandbox", () => fetchText(s.domain(3000)), 10_000);
    const pid = async (name: string) => Number(await text(s, `pids/${name}`));
    return {
      parent: await pid("parent"),
      child: await pid("child"),
      grandchild: await pid("grandchild"),
    };
  }

  function expectDead(pids: Record<string, number>) {
    if (!h.hostProcessAlive) return;
    for (const [name, pid] of Object.entries(pids)) {
      expect(h.hostProcessAlive(pid), `${name} (${pid}) still alive`).toBe(false);
    }
  }

  /** The sandbox as its provider sees it now (a remote handle shows its last answer). */
  const fresh = async (s: ManagedSandbox) =>
    h.kind === "host-directory" ? s : await provider.get(s.id);

  const untilStopped = (s: ManagedSandbox, ms: number) =>
    waitFor(
      `sandbox ${s.id} to stop`,
      async () => (await fresh(s)).status === "stopped" || undefined,
      ms,
    );

  return {
    h,
    provider,
    created,
    create,
    text,
    sh,
    startTree,
    expectDead,
    fresh,
    untilStopped,
  };
}

export type ContractKit = ReturnType<typeof makeContractKit>;
