import { afterAll, afterEach, describe, expect, it } from "vitest";
import { portEnvName } from "../../../src/protocol/constants";
import { UnsupportedNetworkPolicyError } from "../../../src/server/providers/types";
import {
  type ContractKit,
  fetchText,
  makeContractKit,
  PORTS,
  type ProviderContractHarness,
  waitFor,
} from "./contract-kit";
import { echoServer, processTree } from "./contract-programs";
import { filesystemContract } from "./provider-contract-fs";

export type { ProviderContractHarness } from "./contract-kit";

/**
 * The contract every SandboxProvider passes, with real processes and files. A provider's
 * test file calls this with its harness (see provider.contract.test.ts for the local one).
 */
export function describeProviderContract(h: ProviderContractHarness): void {
  describe(`SandboxProvider contract: ${h.name}`, () => {
    const kit = makeContractKit(h);
    afterEach(async () => {
      await Promise.allSettled(kit.created.splice(0).map((s) => s.stop()));
    });
    afterAll(async () => {
      await h.cleanup?.();
    });
    lifecycleContract(kit);
    filesystemContract(kit);
  });
}

function lifecycleContract(kit: ContractKit): void {
  const { h, provider, created, create, text, sh, startTree, expectDead, fresh, untilStopped } =
    kit;

  it("creates a sandbox, runs commands in its root and reads and writes files", async () => {
    const s = await create({ labels: { instance: "contract" } });
    expect(s.status).toBe("running");
    expect(s.timeout).toBe(120_000);
    expect(Math.abs(s.createdAt - Date.now())).toBeLessThan(60_000);

    const res = await sh(s, 'pwd; echo "$HOME"; echo oops >&2; exit 7');
    expect(res).toEqual({ exitCode: 7, stdout: `${s.root}\n${s.root}\n`, stderr: "oops\n" });
    // The server's own environment (where its secrets live) must not reach the sandbox.
    process.env.CLAWRUN_CONTRACT_SECRET = "must-not-leak";
    const env = await sh(
      s,
      `echo "\${CLAWRUN_CONTRACT_SECRET:-unset} $${portEnvName(3000)}"`,
    ).finally(() => delete process.env.CLAWRUN_CONTRACT_SECRET);
    const given = { ...s.baseEnv, ...(await h.platformEnv?.(s)) };
    expect(env.stdout).toBe(`unset ${given[portEnvName(3000)] ?? ""}\n`);

    await s.writeFiles([
      { path: "notes/a.txt", content: "alpha" },
      {
        path: `${s.root}/bin/run.sh`,
        content: Buffer.from("#!/bin/sh\necho ran $1\n"),
        mode: 0o755,
      },
    ]);
    expect(await text(s, "notes/a.txt")).toBe("alpha");
    expect(await text(s, `${s.root}/notes/a.txt`)).toBe("alpha");
    expect(await s.readFile("notes/missing.txt")).toBeNull();
    const ran = await s.runCommand({ cmd: "./run.sh", args: ["x"], cwd: "bin" });
    expect(ran).toEqual({ exitCode: 0, stdout: "ran x\n", stderr: "" });
    const custom = await s.runCommand({
      cmd: "sh",
      args: ["-c", "echo $GREETING"],
      env: { GREETING: "hi" },
    });
    expect(custom.stdout).toBe("hi\n");

    const listed = (await provider.list()).find((x) => x.id === s.id);
    expect(listed).toMatchObject({ status: "running", labels: { instance: "contract" } });
  });

  it("keeps a detached process running after the call returns", async () => {
    const s = await create();
    await s.writeFiles([{ path: "later.sh", content: "sleep 0.5\necho done > later.txt\n" }]);
    const started = await s.runCommand({ cmd: "sh", args: ["later.sh"], detached: true });
    expect(started.commandId).toBeTruthy();
    expect(await s.readFile("later.txt")).toBeNull(); // the call did not wait for it
    expect(await waitFor("later.txt", () => text(s, "later.txt"), 5_000)).toBe("done\n");
    await startTree(s);
    expect(await fetchText(s.domain(3000))).toBe("pong");
  });

  it("kills the whole process tree when the TTL expires", async () => {
    const s = await create({ timeoutMs: h.ttlMs });
    const pids = await startTree(s);
    await untilStopped(s, h.ttlMs + 15_000);
    await expect(fetchText(s.domain(3000))).rejects.toThrow();
    expectDead(pids);
    await expect(sh(s, "true")).rejects.toThrow();
  });

  it("postpones the TTL by extendTimeout", async () => {
    const s = await create({ timeoutMs: h.ttlMs });
    await startTree(s);
    await s.extendTimeout(2 * h.ttlMs);
    expect(s.timeout).toBe(3 * h.ttlMs);
    // Well past the original deadline, well before the extended one.
    await new Promise((r) => setTimeout(r, s.createdAt + 1.6 * h.ttlMs - Date.now()));
    expect((await fresh(s)).status).toBe("running");
    expect(await fetchText(s.domain(3000))).toBe("pong");
    await untilStopped(s, 3 * h.ttlMs + 15_000);
    expect(Date.now()).toBeGreaterThanOrEqual(s.createdAt + 3 * h.ttlMs);
  });

  it("enforces the TTL after the process that created the sandbox has exited", async () => {
    const id = await h.createFromAnotherProcess(
      { timeoutMs: h.ttlMs + 2_000, ports: PORTS },
      { files: processTree(h.node, h.listenHost), cmd: "sh", args: ["parent.sh"] },
    );
    const s = await h.makeProvider().get(id);
    created.push(s);
    expect(s.status).toBe("running");
    await waitFor("the orphaned server", () => fetchText(s.domain(3000)), 10_000);
    const pids = {
      parent: Number(await text(s, "pids/parent")),
      grandchild: Number(await text(s, "pids/grandchild")),
    };
    await untilStopped(s, h.ttlMs + 20_000);
    await expect(fetchText(s.domain(3000))).rejects.toThrow();
    expectDead(pids);
  });

  it("reports the truth through a fresh provider object (server restart)", async () => {
    const s = await create({ labels: { who: "restart" } });
    const again = await h.makeProvider().get(s.id);
    expect([again.status, again.timeout, again.createdAt]).toEqual([
      "running",
      s.timeout,
      s.createdAt,
    ]);
    expect(again.domain(3000)).toBe(s.domain(3000));
    await s.extendTimeout(1_000);
    expect((await fresh(again)).timeout).toBe(121_000);
    await s.stop();
    expect((await fresh(again)).status).toBe("stopped");
    const listed = (await h.makeProvider().list()).find((x) => x.id === s.id);
    expect(listed).toMatchObject({ status: "stopped", labels: { who: "restart" } });
  });

  it("refuses network policies it cannot enforce, at create and later", async () => {
    for (const policy of h.unsupportedPolicies) {
      await expect(create({ networkPolicy: policy })).rejects.toBeInstanceOf(
        UnsupportedNetworkPolicyError,
      );
    }
    const s = await create({ networkPolicy: "allow-all" });
    await s.updateNetworkPolicy("allow-all");
    for (const policy of h.unsupportedPolicies) {
      await expect(s.updateNetworkPolicy(policy)).rejects.toBeInstanceOf(
        UnsupportedNetworkPolicyError,
      );
    }
    expect(s.status).toBe("running");
  });

  it("stops everything, idempotently", async () => {
    const s = await create();
    const pids = await startTree(s);
    await s.stop();
    expect(s.status).toBe("stopped");
    await expect(fetchText(s.domain(3000))).rejects.toThrow();
    expectDead(pids);
    await s.stop();
    expect((await provider.get(s.id)).status).toBe("stopped");
    await expect(sh(s, "true")).rejects.toThrow();
    await expect(s.readFile("pids/parent")).rejects.toThrow();
    await expect(s.snapshot()).rejects.toThrow();
  });

  it("serves the declared ports through domain()", async () => {
    const s = await create();
    await s.writeFiles([{ path: "server.js", content: echoServer(h.listenHost, 3001) }]);
    await s.runCommand({
      cmd: h.node,
      args: ["server.js", "p"],
      env: { REPLY: "health" },
      detached: true,
    });
    expect(await waitFor("port 3001", () => fetchText(s.domain(3001)), 10_000)).toBe("health");
  });
}
