import { expect } from "vitest";
import type { NetworkPolicy } from "../../../src/config/schema";
import type {
  CreateSandboxOptions,
  ManagedSandbox,
  SandboxProvider,
} from "../../../src/server/providers/types";
import { processTree } from "./contract-programs";

/** What a provider brings to run the contract suite against itself. */
export interface ProviderContractHarness {
  name: string;
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

export async function fetchText(url: string): Promise<string> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  return res.text();
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

  const untilStopped = (s: ManagedSandbox, ms: number) =>
    waitFor(`sandbox ${s.id} to stop`, () => s.status === "stopped" || undefined, ms);

  return { h, provider, created, create, text, sh, startTree, expectDead, untilStopped };
}

export type ContractKit = ReturnType<typeof makeContractKit>;
