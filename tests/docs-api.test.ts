import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Every route file under app/api, as "METHOD /api/path" with [param] written {param}. */
function routes(dir = "app/api"): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...routes(path));
    else if (entry === "route.ts") {
      const url = `/${relative("app", dir)}`.replace(/\[([^\]]+)\]/g, "{$1}");
      const source = readFileSync(path, "utf8");
      for (const m of METHODS) {
        if (new RegExp(`export (const|async function|function) ${m}\\b`).test(source))
          out.push(`${m} ${url}`);
      }
    }
  }
  return out;
}

it("docs/api.md documents every route and method the app serves", () => {
  const doc = readFileSync("docs/api.md", "utf8");
  const headings = new Set<string>();
  for (const line of doc.split("\n")) {
    const m = /^### ((?:[A-Z]+, )*[A-Z]+) (\/\S+)/.exec(line);
    if (!m) continue;
    const path = (m[2] as string).replace(/\?.*$/, "");
    for (const method of (m[1] as string).split(", ")) headings.add(`${method} ${path}`);
  }
  const served = routes().sort();
  expect(served.length).toBeGreaterThan(10);
  expect(served.filter((r) => !headings.has(r))).toEqual([]);
  expect([...headings].filter((h) => !served.includes(h))).toEqual([]);
});
