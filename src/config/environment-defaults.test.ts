import { describe, expect, it } from "vitest";
import { parseConfigText } from "../server/compose/config-schema";
import { defaultProvider, withEnvironmentDefaults } from "./environment-defaults";

function loaded(text: string) {
  return { ...parseConfigText(text), path: "/srv/app/clawrun.json" };
}

describe("defaultProvider", () => {
  it("is Vercel Sandbox on Vercel and local processes elsewhere", () => {
    expect(defaultProvider({ onVercel: true })).toBe("vercel");
    expect(defaultProvider({ onVercel: false })).toBe("local");
  });
});

describe("withEnvironmentDefaults", () => {
  it("runs the agent in Vercel Sandbox on Vercel and locally elsewhere, when the file says nothing", () => {
    const file = loaded('{ "agent": { "type": "echo" } }');
    expect(withEnvironmentDefaults(file, { onVercel: true }).config.sandbox.provider).toBe(
      "vercel",
    );
    expect(withEnvironmentDefaults(file, { onVercel: false }).config.sandbox.provider).toBe(
      "local",
    );
  });

  it("keeps the provider the file names", () => {
    const file = loaded('{ "sandbox": { "provider": "local" } }');
    expect(withEnvironmentDefaults(file, { onVercel: true }).config.sandbox.provider).toBe("local");
  });

  it("reads the committed clawrun.json the same way", async () => {
    const { readFileSync } = await import("node:fs");
    const file = loaded(readFileSync("clawrun.json", "utf8"));
    expect(file.config.$schema).toBe("./clawrun.schema.json");
    expect(withEnvironmentDefaults(file, { onVercel: true }).config.sandbox.provider).toBe(
      "vercel",
    );
    expect(withEnvironmentDefaults(file, { onVercel: false }).config.sandbox.provider).toBe(
      "local",
    );
  });
});
