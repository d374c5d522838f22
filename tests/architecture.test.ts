import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { BUNDLES } from "../src/server/bundles";

/**
 * The house rules of docs/architecture.md, checked on the import graph of every source file
 * (tests excluded): no cycles, and imports only in the documented direction.
 */

const ROOT = resolve(__dirname, "..");

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir))) {
    const path = join(dir, entry);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(entry) && !/\.test\.tsx?$/.test(entry)) out.push(path);
  }
  return out;
}

function resolveImport(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = join(ROOT, spec.slice(2));
  else if (spec.startsWith(".")) base = resolve(ROOT, dirname(from), spec);
  else return null; // a package or node built-in
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(ROOT, candidate);
  }
  return null;
}

/** file → [imported file or bare specifier] (type-only imports count: they are dependencies too). */
function importGraph(): Map<string, { files: string[]; packages: string[] }> {
  const graph = new Map<string, { files: string[]; packages: string[] }>();
  const pattern =
    /(?:import|export)\s+(?:type\s+)?(?:[^"';]*?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  for (const file of [...sourceFiles("src"), ...sourceFiles("app")]) {
    const text = readFileSync(join(ROOT, file), "utf8");
    const files: string[] = [];
    const packages: string[] = [];
    for (const m of text.matchAll(pattern)) {
      const spec = (m[1] ?? m[2]) as string;
      const target = resolveImport(file, spec);
      if (target) files.push(target);
      else if (!spec.startsWith(".") && !spec.startsWith("@/")) packages.push(spec);
    }
    graph.set(file, { files, packages });
  }
  return graph;
}

const graph = importGraph();

function findCycle(): string[] | null {
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (file: string): string[] | null => {
    if (state.get(file) === "done") return null;
    if (state.get(file) === "visiting") return [...stack.slice(stack.indexOf(file)), file];
    state.set(file, "visiting");
    stack.push(file);
    for (const next of graph.get(file)?.files ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(file, "done");
    return null;
  };
  for (const file of graph.keys()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return null;
}

/** Imports from files under `from` that reach into files under any of `into`. */
function violations(from: string, into: string[], except: string[] = []): string[] {
  const out: string[] = [];
  for (const [file, deps] of graph) {
    if (!file.startsWith(from) || except.some((e) => file.startsWith(e))) continue;
    for (const dep of deps.files)
      if (into.some((p) => dep.startsWith(p))) out.push(`${file} → ${dep}`);
  }
  return out;
}

/**
 * The floors of the house, top to bottom (docs/architecture.md, "Folders and what may import
 * what"). A folder (or a loose file) may import only from floors below its own: never from its
 * own floor, never from above. Every source file must sit in one of these rooms, so a new folder
 * is placed here on purpose. The longest matching prefix names a file's room.
 */
const FLOORS: readonly (readonly string[])[] = [
  ["app/", "src/cli/", "src/sidecar/", "src/agent-echo/"],
  ["src/server/shutdown/"],
  ["src/server/dashboard/", "src/server/operator/", "src/server/tick/", "src/server/setup/"],
  ["src/server/http/"],
  ["src/server/auth/"],
  ["src/server/compose/"],
  ["src/server/app-context.ts"],
  ["src/server/sandbox/"],
  ["src/server/cron/", "src/server/inbox/", "src/server/model-gateway/"],
  ["src/server/door/", "src/server/channels/", "src/server/store/"],
  ["src/server/agents/", "src/server/body/"],
  ["src/server/providers/"],
  ["src/server/layers/", "src/server/bundles.ts"],
  ["src/server/domain/", "src/server/logger.ts"],
  ["src/config/"],
  ["src/protocol/"],
];

function roomOf(file: string): { room: string; floor: number } | null {
  let best: { room: string; floor: number } | null = null;
  FLOORS.forEach((rooms, floor) => {
    for (const room of rooms)
      if (file.startsWith(room) && (!best || room.length > best.room.length))
        best = { room, floor };
  });
  return best;
}

/** Imports that stay level or run back up the floors, as "file → dep (room → room)". */
function upwardImports(g: typeof graph): string[] {
  const out: string[] = [];
  for (const [file, deps] of g) {
    const from = roomOf(file);
    for (const dep of deps.files) {
      const to = roomOf(dep);
      if (!from || !to || from.room === to.room || to.floor > from.floor) continue;
      out.push(`${file} → ${dep} (${from.room} → ${to.room})`);
    }
  }
  return out;
}

const IO_PACKAGES = [
  "node:fs",
  "node:fs/promises",
  "node:child_process",
  "node:net",
  "node:http",
  "node:https",
  "better-sqlite3",
  "ioredis",
  "@upstash/redis",
];

describe("architecture (docs/architecture.md)", () => {
  it("has no import cycle between files", () => {
    expect(findCycle()).toBeNull();
  });

  it("keeps the in-sandbox programs free of the server: Node built-ins and src/protocol only", () => {
    for (const dir of ["src/sidecar/", "src/agent-echo/"]) {
      expect(violations(dir, ["src/server/", "src/config/", "app/"])).toEqual([]);
      for (const [file, deps] of graph) {
        if (!file.startsWith(dir)) continue;
        expect(
          deps.packages.filter((p) => !p.startsWith("node:")),
          file,
        ).toEqual([]);
      }
    }
  });

  it("keeps the in-sandbox programs lean: everything they import, src/protocol included, uses Node built-ins only (no zod: docs/sidecar.md, Memory and Start-up order)", () => {
    const reached = new Set<string>();
    const visit = (file: string): void => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const next of graph.get(file)?.files ?? []) visit(next);
    };
    const inSandbox = ["src/sidecar/", "src/agent-echo/"];
    for (const file of graph.keys()) if (inSandbox.some((d) => file.startsWith(d))) visit(file);
    expect(
      [...reached].filter(
        (f) => !inSandbox.some((d) => f.startsWith(d)) && !f.startsWith("src/protocol/"),
      ),
    ).toEqual([]);
    const heavy = [...reached].flatMap((file) =>
      (graph.get(file)?.packages ?? [])
        .filter((p) => !p.startsWith("node:"))
        .map((p) => `${file} → ${p}`),
    );
    expect(heavy).toEqual([]);
  });

  it("bundles the programs that boot during every wake (sidecar, echo daemon, local watchdog) without any package: start-up time is on the wake's critical path", async () => {
    for (const b of Object.values(BUNDLES)) {
      const out = await build({
        entryPoints: [b.entry],
        bundle: true,
        platform: "node",
        target: "node20",
        format: "cjs",
        write: false,
        metafile: true,
        logLevel: "silent",
      });
      const packages = Object.keys(out.metafile.inputs).filter((f) => f.includes("node_modules"));
      expect(packages, b.entry).toEqual([]);
    }
  });

  it("places every source file in a room of the declared floors", () => {
    expect([...graph.keys()].filter((f) => !roomOf(f))).toEqual([]);
  });

  it("imports run only down the floors: no folder imports its own floor or one above", () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it("catches an import that runs back up (the check itself can fail)", () => {
    const planted = new Map(graph);
    planted.set("src/server/store/planted.ts", {
      files: ["src/server/sandbox/manager.ts"],
      packages: [],
    });
    planted.set("src/server/door/planted.ts", {
      files: ["src/server/channels/types.ts"],
      packages: [],
    });
    expect(upwardImports(planted).filter((v) => v.includes("/planted.ts"))).toEqual([
      "src/server/store/planted.ts → src/server/sandbox/manager.ts (src/server/store/ → src/server/sandbox/)",
      "src/server/door/planted.ts → src/server/channels/types.ts (src/server/door/ → src/server/channels/)",
    ]);
  });

  it("imports flow downwards: protocol and config never reach into the server", () => {
    expect(violations("src/protocol/", ["src/server/", "src/config/", "app/"])).toEqual([]);
    expect(violations("src/config/", ["src/server/", "app/"])).toEqual([]);
    expect(violations("src/server/", ["app/"])).toEqual([]);
    // The operator CLI sits on top: nothing in the app imports it (the Next build ignores it).
    expect(violations("src/", ["src/cli/"], ["src/cli/"])).toEqual([]);
    expect(violations("app/", ["src/cli/"])).toEqual([]);
  });

  it("keeps the domain pure: no I/O and no other server folder", () => {
    expect(
      violations("src/server/domain/", ["src/server/"], []).filter(
        (v) => !v.split(" → ")[1]?.startsWith("src/server/domain/"),
      ),
    ).toEqual([]);
    for (const [file, deps] of graph) {
      if (!file.startsWith("src/server/domain/") && !file.startsWith("src/protocol/")) continue;
      expect(
        deps.packages.filter((p) => IO_PACKAGES.includes(p)),
        file,
      ).toEqual([]);
    }
  });

  it("keeps the pure decisions (sandbox/plan/) free of I/O", () => {
    const pure = [...graph.keys()].filter((f) => f.startsWith("src/server/sandbox/plan/"));
    expect(pure.length).toBeGreaterThan(0);
    for (const file of pure) {
      const deps = graph.get(file);
      expect(
        deps?.packages.filter((p) => IO_PACKAGES.includes(p)),
        file,
      ).toEqual([]);
      const impure = (deps?.files ?? []).filter(
        (d) =>
          !d.startsWith("src/server/sandbox/plan/") &&
          !d.startsWith("src/server/domain/") &&
          !d.startsWith("src/protocol/") &&
          !d.endsWith("providers/types.ts"),
      );
      expect(impure, file).toEqual([]);
    }
  });

  it("keeps the ports' adapters out of the lifecycle and the lifecycle out of them", () => {
    expect(violations("src/server/store/", ["src/server/sandbox/", "src/server/inbox/"])).toEqual(
      [],
    );
    expect(
      violations("src/server/providers/", ["src/server/sandbox/", "src/server/inbox/"]),
    ).toEqual([]);
    expect(
      violations("src/server/channels/", [
        "src/server/sandbox/",
        "src/server/inbox/",
        "src/server/providers/",
        "src/server/store/",
      ]),
    ).toEqual([]);
    expect(violations("src/server/agents/", ["src/server/sandbox/", "src/server/inbox/"])).toEqual(
      [],
    );
  });

  it("never lets the inbox or the lifecycle know channel names", () => {
    for (const dir of ["src/server/inbox/", "src/server/sandbox/"]) {
      for (const [file, deps] of graph) {
        if (!file.startsWith(dir)) continue;
        const channelModules = deps.files.filter(
          (d) => d.startsWith("src/server/channels/") && !d.endsWith("channels/types.ts"),
        );
        expect(channelModules, file).toEqual([]);
      }
    }
  });

  it("never lets the dashboard know provider names: prices come from the module's cost()", () => {
    for (const [file, deps] of graph) {
      if (!file.startsWith("src/server/dashboard/")) continue;
      // providers/index.ts (the list) and the shared types are fine; a provider's folder is not.
      const providerFolders = deps.files.filter((d) => /^src\/server\/providers\/[^/]+\//.test(d));
      expect(providerFolders, file).toEqual([]);
      const names = readFileSync(join(ROOT, file), "utf8").match(/["'`](vercel|local)["'`]/g);
      expect(names, file).toBeNull();
    }
  });

  it("keeps every source file under 400 lines", () => {
    const long = [...graph.keys()]
      .map((f) => [f, readFileSync(join(ROOT, f), "utf8").split("\n").length] as const)
      .filter(([, n]) => n > 400);
    expect(long).toEqual([]);
  });
});
