import { describe, expect, it } from "vitest";
import { createLogger } from "./logger";

function capture() {
  const lines: string[] = [];
  const logger = createLogger({
    destination: { write: (s: string) => lines.push(s) } as unknown as NodeJS.WritableStream,
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
