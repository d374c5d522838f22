import pino from "pino";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../config/load-config";
import { registerBuiltinProviders } from "./builtin";
import { LocalProvider } from "./local/local-provider";
import {
  getProvider,
  type ProviderContext,
  registeredProviders,
  registerProvider,
} from "./registry";
import type { SandboxProvider } from "./types";

const ctx: ProviderContext = {
  config: parseConfig("{}").config,
  stateDir: "/tmp/clawrun-registry-test",
  logger: pino({ level: "silent" }),
  hostEnv: { PATH: "/usr/bin:/bin" },
};

function fakeProvider(name: string): SandboxProvider {
  const nope = () => Promise.reject(new Error("not used"));
  return {
    name,
    capabilities: { restoreAnySnapshot: false },
    create: nope,
    get: nope,
    list: nope,
    listSnapshots: nope,
    deleteSnapshot: nope,
    check: nope,
  };
}

describe("provider registry", () => {
  it("builds a registered provider with the context it is given", () => {
    let seen: ProviderContext | undefined;
    registerProvider("custom", (c) => {
      seen = c;
      return fakeProvider("custom");
    });
    expect(getProvider("custom", ctx).name).toBe("custom");
    expect(seen).toBe(ctx);
  });

  it("replaces a provider registered again under the same name", () => {
    registerProvider("twice", () => fakeProvider("first"));
    registerProvider("twice", () => fakeProvider("second"));
    expect(getProvider("twice", ctx).name).toBe("second");
  });

  it("names the registered providers when asked for an unknown one", () => {
    registerProvider("alpha", () => fakeProvider("alpha"));
    expect(() => getProvider("nope", ctx)).toThrow(
      `unknown sandbox provider "nope"; registered providers: ${registeredProviders().join(", ")}`,
    );
    expect(registeredProviders()).toContain("alpha");
  });

  it("registers the built-in local provider", () => {
    registerBuiltinProviders();
    const provider = getProvider("local", ctx);
    expect(provider).toBeInstanceOf(LocalProvider);
    expect(provider.name).toBe("local");
    expect(provider.capabilities.restoreAnySnapshot).toBe(true);
  });
});
