import { describe, expect, it } from "vitest";
import { readEnv } from "../../config/env";
import { clawrunConfigSchema, parseConfigText } from "../compose/config-schema";
import { effectiveConfig } from "./effective-config";

describe("effectiveConfig", () => {
  const { config, raw } = parseConfigText(
    JSON.stringify({
      sandbox: { activeDuration: 120 },
      agent: {
        type: "command",
        command: "my-agent",
        env: { API_KEY: "sk-live-123", TOKEN: { fromEnv: "MY_TOKEN" } },
      },
    }),
  );
  const env = readEnv(
    { REDIS_URL: "redis://user:pw@host:6379", CLAWRUN_TIMINGS: '{"heartbeatIntervalMs":1000}' },
    "/srv",
  );
  const rows = effectiveConfig(
    { config, raw, path: "/srv/clawrun.json" },
    env,
    clawrunConfigSchema,
  );
  const row = (key: string) => rows.find((r) => r.key === key);

  it("says which values come from clawrun.json and which are defaults", () => {
    expect(row("sandbox.activeDuration")).toEqual({
      key: "sandbox.activeDuration",
      value: "120",
      source: "clawrun.json",
    });
    expect(row("sandbox.cronKeepAliveWindow")).toEqual({
      key: "sandbox.cronKeepAliveWindow",
      value: "900",
      source: "default",
    });
    expect(row("timings.heartbeatIntervalMs")?.source).toBe("environment (CLAWRUN_TIMINGS)");
    expect(row("store")).toEqual({
      key: "store",
      value: "redis-tcp",
      source: "environment (REDIS_URL)",
    });
  });

  it("never shows a secret value", () => {
    const text = JSON.stringify(rows);
    expect(text).not.toContain("sk-live-123");
    expect(text).not.toContain("pw@host");
    expect(row("agent.env.API_KEY")?.value).toBe("(set)");
    expect(row("agent.env.TOKEN")?.value).toBe("(from environment MY_TOKEN)");
  });
});
