import { describe, expect, it } from "vitest";
import { secretPaths } from "../config/secret-paths";
import { clawrunConfigSchema, parseConfigText } from "./compose/config-schema";
import { createLogger } from "./logger";

function capture(redact: string[] = []) {
  const lines: string[] = [];
  const logger = createLogger({
    destination: { write: (s: string) => lines.push(s) } as unknown as NodeJS.WritableStream,
    redact,
  });
  return { logger, json: () => lines.map((l) => JSON.parse(l)) };
}

describe("logger redaction", () => {
  it("never writes secret-bearing fields or headers", () => {
    const { logger, json } = capture();
    logger.info(
      {
        headers: {
          authorization: "Bearer s1",
          cookie: "clawrun_session=s2",
          "x-clawrun-signature": "v1=s3",
        },
        req: { headers: { authorization: "Bearer s4" } },
        token: "s5",
        secret: "s6",
        config: { password: "s7", apiKey: "s8" },
        env: { OPENAI_API_KEY: "s9" },
        sandboxId: "sbx_visible",
      },
      "request",
    );
    const text = JSON.stringify(json());
    for (let i = 1; i <= 9; i++) expect(text).not.toContain(`s${i}"`);
    expect(text).toContain("sbx_visible");
    expect(json()[0].headers.authorization).toBe("[redacted]");
  });
});

describe("config values the schema marks secret", () => {
  it("are redacted wherever the config is logged", () => {
    const { config } = parseConfigText(
      JSON.stringify({
        agent: { type: "command", command: "bot", env: { MODE: "fast", KEY: "sk-live-xyz" } },
      }),
    );
    const { logger, json } = capture(
      secretPaths(clawrunConfigSchema, config).map((p) => `config.${p}`),
    );
    logger.info({ config }, "loaded");
    const text = JSON.stringify(json());
    expect(text).not.toContain("sk-live-xyz");
    expect(text).not.toContain('"fast"');
    expect(json()[0].config.agent.command).toBe("bot");
  });
});
