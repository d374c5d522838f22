import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { layerId } from "../../layers/layer-id";
import type { LayerRecipe } from "../../layers/types";
import { LocalLayerStore } from "./layer-store";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) {
    // Layers are read-only: make them removable first.
    spawnSync("chmod", ["-R", "u+w", d]);
    rmSync(d, { recursive: true, force: true });
  }
});

function store(): { store: LocalLayerStore; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "layers-"));
  dirs.push(dir);
  return { store: new LocalLayerStore({ dir, hostEnv: { PATH: "/usr/bin:/bin" } }), dir };
}

const recipe = (version: string, extra: string[] = []): LayerRecipe => ({
  name: "demo",
  inputs: { demo: version },
  build: [
    `mkdir -p bin lib && printf '#!/bin/sh\\necho demo ${version}\\n' > bin/demo && chmod 755 bin/demo`,
    "head -c 4096 /dev/urandom > lib/blob && ln -s ../lib/blob bin/blob-link",
    ...extra,
  ],
  mountAt: ".clawrun/layer",
});

describe("LocalLayerStore (real sh, real files)", () => {
  it("builds once under its id, read-only with a manifest, then reuses it", async () => {
    const { store: s, dir } = store();
    const first = await s.ensure(recipe("1"));
    expect(first).toMatchObject({
      id: layerId(recipe("1")),
      dir: join(dir, layerId(recipe("1"))),
      action: "built",
    });
    expect(readFileSync(join(first.dir, "bin/demo"), "utf8")).toContain("demo 1");
    const manifest = JSON.parse(readFileSync(join(first.dir, ".clawrun-layer.json"), "utf8"));
    expect(manifest).toMatchObject({
      format: 1,
      id: first.id,
      contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // Read-only for everyone (root could still write, hence the mode check).
    for (const path of ["bin/demo", "lib/blob", "bin", "."]) {
      expect(statSync(join(first.dir, path)).mode & 0o222, path).toBe(0);
    }
    expect((await s.ensure(recipe("1"))).action).toBe("reused");
    // No temporary directory is left behind.
    expect(readdirSync(dir).filter((n) => n.startsWith(".build-"))).toEqual([]);
  });

  it("concurrent ensures of one layer share one build", async () => {
    const { store: s } = store();
    const [a, b] = await Promise.all([s.ensure(recipe("1")), s.ensure(recipe("1"))]);
    expect(a).toBe(b);
  });

  it.each([
    ["an edited file", (d: string) => writeFileSync(join(d, "bin/demo"), "#!/bin/sh\necho evil\n")],
    ["an added file", (d: string) => writeFileSync(join(d, "bin/extra"), "x")],
    [
      "a re-pointed link",
      (d: string) => {
        rmSync(join(d, "bin/blob-link"));
        symlinkSync("/etc/passwd", join(d, "bin/blob-link"));
      },
    ],
  ])("refuses a layer with %s and rebuilds it, saying why", async (_what, alter) => {
    const { store: s } = store();
    const built = await s.ensure(recipe("1"));
    spawnSync("chmod", ["-R", "u+w", built.dir]);
    alter(built.dir);
    const again = await s.ensure(recipe("1"));
    expect(again.action).toBe("rebuilt");
    expect(again.replacedBecause).toMatch(/content hash/);
    expect(readFileSync(join(again.dir, "bin/demo"), "utf8")).toContain("demo 1");
    expect(existsSync(join(again.dir, "bin/extra"))).toBe(false);
    expect((await s.ensure(recipe("1"))).action).toBe("reused");
  });

  it("an unchanged layer whose change times moved (a copy, a chmod) is verified by content and kept", async () => {
    const { store: s } = store();
    const built = await s.ensure(recipe("1"));
    chmodSync(join(built.dir, "bin/demo"), 0o555); // same mode, new ctime
    expect((await s.ensure(recipe("1"))).action).toBe("reused");
  });

  it("a failed build leaves the previous layer untouched and says why", async () => {
    const { store: s, dir } = store();
    const old = await s.ensure(recipe("1"));
    const failing = recipe("2", ["echo 'npm ERR! network unreachable' >&2; exit 7"]);
    await expect(s.ensure(failing)).rejects.toMatchObject({
      name: "LayerBuildError",
      message: expect.stringMatching(/build step 3\/3 failed \(7\).*network unreachable/s),
    });
    expect(existsSync(join(dir, layerId(failing)))).toBe(false);
    expect(readdirSync(dir).filter((n) => n.startsWith(".build-"))).toEqual([]);
    expect(await s.ensure(recipe("1"))).toMatchObject({ id: old.id, action: "reused" });
  });

  it("keeps boot records per key, validated", async () => {
    const { store: s } = store();
    expect(await s.readBoots("clawrun.openclaw")).toEqual({ good: null, failed: [] });
    const record = { good: { id: "x", recipe: recipe("1") }, failed: ["y"] };
    await s.writeBoots("clawrun.openclaw", record);
    expect(await s.readBoots("clawrun.openclaw")).toEqual(record);
    await expect(s.readBoots("../escape")).rejects.toThrow(/key/);
  });
});
