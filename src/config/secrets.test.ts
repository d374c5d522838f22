import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readEnv } from "./env";
import { MissingSecretsError, resolveSecrets } from "./secrets";

describe("resolveSecrets", () => {
  it("generates missing secrets once locally, in a mode-600 file, and reuses them", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawrun-secrets-"));
    const env = readEnv({ CLAWRUN_STATE_DIR: dir });
    const first = resolveSecrets(env);
    expect(first.generated.sort()).toEqual([
      "ADMIN_SECRET",
      "CLAWRUN_SECRET",
      "CLAWRUN_WEBHOOK_SECRET",
      "CRON_SECRET",
    ]);
    expect(first.secrets.ADMIN_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    const second = resolveSecrets(env);
    expect(second.generated).toEqual([]);
    expect(second.secrets).toEqual(first.secrets);
  });

  it("lets the environment override a stored secret without touching the file", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawrun-secrets-"));
    resolveSecrets(readEnv({ CLAWRUN_STATE_DIR: dir }));
    const before = readFileSync(join(dir, "secrets.json"), "utf8");
    const given = "g".repeat(24);
    const { secrets } = resolveSecrets(readEnv({ CLAWRUN_STATE_DIR: dir, ADMIN_SECRET: given }));
    expect(secrets.ADMIN_SECRET).toBe(given);
    expect(readFileSync(join(dir, "secrets.json"), "utf8")).toBe(before);
  });

  it("on Vercel names every missing secret instead of generating", () => {
    const env = readEnv({
      VERCEL: "1",
      ADMIN_SECRET: "a".repeat(20),
      REDIS_URL: "redis://127.0.0.1:1",
    });
    expect(() => resolveSecrets(env)).toThrow(MissingSecretsError);
    expect(() => resolveSecrets(env)).toThrow(
      /CLAWRUN_SECRET, CRON_SECRET, CLAWRUN_WEBHOOK_SECRET/,
    );
  });
});
