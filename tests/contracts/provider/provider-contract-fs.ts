import { expect, it } from "vitest";
import {
  type ManagedSandbox,
  PathEscapeError,
  SandboxNotFoundError,
  SnapshotNotFoundError,
} from "../../../src/server/providers/types";
import { type ContractKit, fetchText, waitFor } from "./contract-kit";
import { consistencyVerifier, continuousWriter } from "./contract-programs";

/** Snapshots, isolation between sandboxes, and the sandbox root as a boundary. */
export function filesystemContract(kit: ContractKit): void {
  const { h, provider, create, text, sh, startTree } = kit;

  it("round-trips a snapshot: content, modes, symlinks and empty directories", async () => {
    const s = await create();
    const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256));
    await s.writeFiles([
      { path: "data/text.txt", content: "hello\n" },
      { path: "data/blob.bin", content: binary },
      { path: "bin/tool", content: "#!/bin/sh\necho tool\n", mode: 0o755 },
      { path: "secret/key", content: "k", mode: 0o600 },
    ]);
    await sh(s, "ln -s ../data/text.txt bin/link && mkdir -p empty/nested && chmod 700 secret");
    const snap = await s.snapshot();
    expect(s.status).toBe(provider.capabilities.snapshotStops ? "stopped" : "running");
    const info = (await provider.listSnapshots()).find((x) => x.id === snap.id);
    expect(info).toMatchObject({ id: snap.id, sourceSandboxId: s.id });
    expect(info?.sizeBytes).toBeGreaterThan(0);

    const r = await create({ snapshotId: snap.id });
    expect(r.id).not.toBe(s.id);
    expect(await text(r, "data/text.txt")).toBe("hello\n");
    expect(await r.readFile("data/blob.bin")).toEqual(binary);
    expect(await text(r, "bin/link")).toBe("hello\n");
    const shape = await sh(
      r,
      "stat -c '%a %F %n' bin/tool secret/key secret bin/link empty/nested; readlink bin/link",
    );
    expect(shape.stdout.split("\n")).toEqual([
      "755 regular file bin/tool",
      "600 regular file secret/key",
      "700 directory secret",
      "777 symbolic link bin/link",
      expect.stringMatching(/^\d+ directory empty\/nested$/),
      "../data/text.txt",
      "",
    ]);
    expect((await sh(r, "./bin/tool")).stdout).toBe("tool\n");
  });

  it("takes a consistent snapshot while a process keeps writing", async () => {
    const startWriter = async () => {
      const s = await create();
      await s.writeFiles([{ path: "writer.js", content: continuousWriter }]);
      await s.runCommand({ cmd: h.node, args: ["writer.js"], detached: true });
      return s;
    };
    const progress = async (s: ManagedSandbox) => Number(await text(s, "progress"));
    const goingBy = (s: ManagedSandbox) =>
      waitFor(
        "the writer to get going",
        async () => (await progress(s)) >= 30 || undefined,
        10_000,
      );
    const stops = provider.capabilities.snapshotStops;
    let s = await startWriter();
    await goingBy(s);
    // Several captures: each one races the writer at another point of its cycle.
    for (let round = 0; round < 3; round++) {
      // A provider whose snapshot stops the sandbox gets a new writer each round.
      if (stops && round > 0) {
        s = await startWriter();
        await goingBy(s);
      }
      const writer = s;
      const snap = await writer.snapshot();
      if (stops) expect(writer.status).toBe("stopped");
      else {
        const before = await progress(writer);
        const resumed = async () => (await progress(writer)) > before || undefined;
        await waitFor("the writer to resume", resumed, 5_000);
      }

      const r = await create({ snapshotId: snap.id });
      await r.writeFiles([{ path: "verify.js", content: consistencyVerifier }]);
      const out = await r.runCommand(h.node, ["verify.js"]);
      expect(out.stderr).toBe("");
      const report = JSON.parse(out.stdout) as { pairs: number; records: number; bad: string[] };
      expect(report.bad).toEqual([]);
      expect(report.pairs).toBeGreaterThan(0);
      expect(report.records).toBeGreaterThanOrEqual(30);
      await r.stop();
    }
  });

  it("deletes snapshots", async () => {
    const s = await create();
    await s.writeFiles([{ path: "f", content: "x" }]);
    const snap = await s.snapshot();
    await provider.deleteSnapshot(snap.id);
    expect((await provider.listSnapshots()).map((x) => x.id)).not.toContain(snap.id);
    await expect(provider.deleteSnapshot(snap.id)).rejects.toBeInstanceOf(SnapshotNotFoundError);
    await expect(create({ snapshotId: snap.id })).rejects.toBeInstanceOf(SnapshotNotFoundError);
  });

  it("lists snapshots newest first", async () => {
    const s = await create();
    const first = await s.snapshot();
    // After a snapshot that stops its sandbox, the next one comes from another sandbox.
    const second = await (provider.capabilities.snapshotStops ? await create() : s).snapshot();
    const ids = (await provider.listSnapshots()).map((x) => x.id);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    expect(ids.indexOf(first.id)).toBeGreaterThanOrEqual(0);
  });

  it("runs two sandboxes side by side without sharing ports or files", async () => {
    const [a, b] = await Promise.all([create(), create()]);
    if (!a || !b) throw new Error("unreachable");
    const urls = [a.domain(3000), a.domain(3001), b.domain(3000), b.domain(3001)];
    expect(new Set(urls).size).toBe(4);
    // On one machine the roots must differ; VMs may all use the same path.
    if (h.kind === "host-directory") expect(a.root).not.toBe(b.root);
    await Promise.all([startTree(a, "I am a"), startTree(b, "I am b")]);
    expect(await fetchText(a.domain(3000))).toBe("I am a");
    expect(await fetchText(b.domain(3000))).toBe("I am b");
    await a.writeFiles([{ path: "same.txt", content: "a" }]);
    await b.writeFiles([{ path: "same.txt", content: "b" }]);
    expect([await text(a, "same.txt"), await text(b, "same.txt")]).toEqual(["a", "b"]);
    expect(() => a.domain(4000)).toThrow(/4000/);
  });

  it("fails with typed errors for unknown sandboxes and snapshots", async () => {
    await expect(provider.get("sbx_000000000000000000000000")).rejects.toBeInstanceOf(
      SandboxNotFoundError,
    );
    await expect(provider.get("../../etc")).rejects.toBeInstanceOf(SandboxNotFoundError);
    const before = (await provider.list()).length;
    await expect(create({ snapshotId: "snap_0000000000000000000000" })).rejects.toBeInstanceOf(
      SnapshotNotFoundError,
    );
    await expect(provider.deleteSnapshot("../x")).rejects.toBeInstanceOf(SnapshotNotFoundError);
    expect((await provider.list()).length).toBe(before);
  });

  it("rejects paths that leave the sandbox root", async () => {
    const s = await create();
    const outside = `/tmp/clawrun-contract-outside-${Date.now()}`;
    await sh(s, `ln -s /etc etc-link && ln -s ${outside} dangling && mkdir d && ln -s ../.. d/up`);
    // Paths that leave the root as written: every provider refuses them itself.
    const lexical: Array<() => Promise<unknown>> = [
      () => s.writeFiles([{ path: "../escape.txt", content: "x" }]),
      () => s.writeFiles([{ path: "a/../../escape.txt", content: "x" }]),
      () => s.writeFiles([{ path: "/tmp/escape.txt", content: "x" }]),
      () => s.readFile("../../../../../etc/passwd"),
      () => s.readFile("/etc/passwd"),
      () => s.runCommand({ cmd: "true", cwd: "/" }),
    ];
    // Paths that leave it through symlinks inside the sandbox.
    const throughLinks: Array<() => Promise<unknown>> = [
      () => s.writeFiles([{ path: "dangling", content: "x" }]),
      () => s.writeFiles([{ path: "etc-link/escape.txt", content: "x" }]),
      () => s.readFile("etc-link/passwd"),
      () => s.readFile("d/up/meta.json"),
    ];
    for (const attempt of lexical) await expect(attempt()).rejects.toBeInstanceOf(PathEscapeError);
    for (const attempt of throughLinks) {
      if (h.kind === "host-directory") {
        await expect(attempt()).rejects.toBeInstanceOf(PathEscapeError);
      } else await expect(attempt()).rejects.toThrow();
    }
    expect((await sh(s, `test -e ${outside} && echo yes || echo no`)).stdout).toBe("no\n");
    await s.writeFiles([{ path: "d/inner/../ok.txt", content: "fine" }]);
    expect(await text(s, "d/ok.txt")).toBe("fine");
  });
}
