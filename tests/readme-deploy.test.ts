import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SECRET_NAMES } from "../src/config/env";

/** The README's Deploy button (Vercel's Deploy Button parameters) and what it promises. */

const readme = readFileSync("README.md", "utf8");
const REPOSITORY = "https://github.com/clawrun/clawrun";

function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no "## ${title}" section`);
  const next = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, next < 0 ? undefined : next);
}

function button(): URL {
  const m = /\[!\[Deploy with Vercel\]\(https:\/\/vercel\.com\/button\)\]\((\S+?)\)/.exec(
    section("Deploy to Vercel"),
  );
  if (!m?.[1]) throw new Error("no Deploy with Vercel button in the Deploy to Vercel section");
  return new URL(m[1]);
}

describe("README: Deploy to Vercel", () => {
  it("comes right after the two commands", () => {
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings.indexOf("Deploy to Vercel")).toBe(headings.indexOf("The two commands") + 1);
  });

  it("clones this repository", () => {
    const url = button();
    expect(`${url.origin}${url.pathname}`).toBe("https://vercel.com/new/clone");
    expect(url.searchParams.get("repository-url")).toBe(REPOSITORY);
  });

  it("asks for exactly the secrets a Vercel deployment refuses to start without", () => {
    const url = button();
    expect(url.searchParams.get("env")?.split(",").sort()).toEqual([...SECRET_NAMES].sort());
    expect(url.searchParams.get("envDescription")).toMatch(/openssl rand -hex 32/);
    const link = new URL(url.searchParams.get("envLink") ?? "");
    expect(link.href).toBe(`${REPOSITORY}/blob/main/docs/deploy.md#environment`);
    expect(readFileSync("docs/deploy.md", "utf8")).toMatch(/^## Environment$/m);
  });

  it("attaches Upstash Redis from the Vercel Marketplace", () => {
    const products = JSON.parse(button().searchParams.get("products") ?? "null");
    expect(products).toEqual([
      {
        type: "integration",
        protocol: "storage",
        integrationSlug: "upstash",
        productSlug: "upstash-kv",
      },
    ]);
  });

  it("tells Pro users how to tighten the cron, and the daily cron is what vercel.json ships", () => {
    const text = section("Deploy to Vercel");
    expect(text).toMatch(/On Vercel Pro/);
    expect(text).toMatch(/"\* \* \* \* \*"/);
    const vercel = JSON.parse(readFileSync("vercel.json", "utf8"));
    expect(vercel.crons).toEqual([{ path: "/api/cron", schedule: "0 5 * * *" }]);
  });
});
