import pino from "pino";
import { describe, expect, it } from "vitest";
import { fakeOidcToken } from "../../../../tests/support/fake-oidc-token";
import { EnvError, readEnv } from "../../../config/env";
import { parseConfigText } from "../../compose/config-schema";
import { buildProvider } from "../../compose/modules";
import { oidcClaims, vercelConfigSchema, vercelEnvSchema } from "./config";
import { VercelProvider } from "./vercel-provider";

const env = (vars: Record<string, string>) => readEnv(vars, "/srv/app").moduleEnv(vercelEnvSchema);

describe("vercel provider environment", () => {
  it("takes all three of VERCEL_TOKEN, VERCEL_TEAM_ID, VERCEL_PROJECT_ID", () => {
    const parsed = env({
      VERCEL_TOKEN: "tok",
      VERCEL_TEAM_ID: "team_1",
      VERCEL_PROJECT_ID: "prj_1",
    });
    expect(parsed).toEqual({
      ok: true,
      value: {
        credentials: { kind: "access-token", token: "tok", teamId: "team_1", projectId: "prj_1" },
        apiUrl: null,
      },
    });
  });

  it("takes VERCEL_OIDC_TOKEN alone, with the team and project it names", () => {
    const token = fakeOidcToken({ owner_id: "team_o", project_id: "prj_o", exp: 4e9 });
    expect(env({ VERCEL_OIDC_TOKEN: token })).toEqual({
      ok: true,
      value: {
        credentials: { kind: "oidc", token, teamId: "team_o", projectId: "prj_o" },
        apiUrl: null,
      },
    });
  });

  it("prefers a complete token triple over an OIDC token, as the SDK does", () => {
    const token = fakeOidcToken({ owner_id: "team_o", project_id: "prj_o" });
    const parsed = env({
      VERCEL_OIDC_TOKEN: token,
      VERCEL_TOKEN: "tok",
      VERCEL_TEAM_ID: "team_1",
      VERCEL_PROJECT_ID: "prj_1",
    });
    expect(parsed.ok && parsed.value.credentials.kind).toBe("access-token");
  });

  it.each([
    [{ VERCEL_TOKEN: "tok" }, ["VERCEL_TEAM_ID", "VERCEL_PROJECT_ID"]],
    [{ VERCEL_TOKEN: "tok", VERCEL_PROJECT_ID: "prj" }, ["VERCEL_TEAM_ID"]],
    [{ VERCEL_TEAM_ID: "team", VERCEL_PROJECT_ID: "prj" }, ["VERCEL_TOKEN"]],
  ])("names the missing part of a partial triple %j: %j", (vars, missing) => {
    const oidc = fakeOidcToken({ owner_id: "team_o", project_id: "prj_o" });
    // Even with an OIDC token: a partial triple is ambiguous, never silently ignored.
    const extras: Record<string, string>[] = [{}, { VERCEL_OIDC_TOKEN: oidc }];
    for (const extra of extras) {
      const parsed = env({ ...vars, ...extra });
      expect(parsed.ok).toBe(false);
      if (parsed.ok) return;
      expect(parsed.missing).toEqual(missing);
      for (const name of missing) {
        expect(parsed.problems.join("\n")).toContain(
          `environment: ${name} is not set (set together with`,
        );
      }
    }
  });

  it("explains the two ways when no credential is set", () => {
    expect(env({})).toEqual({
      ok: false,
      missing: [],
      problems: [
        "environment: the vercel provider needs VERCEL_OIDC_TOKEN (set on Vercel) or all of VERCEL_TOKEN, VERCEL_TEAM_ID and VERCEL_PROJECT_ID",
      ],
    });
  });

  it("refuses an OIDC token that does not name a team and project, without echoing it", () => {
    const bad = fakeOidcToken({ sub: "someone" });
    const parsed = env({ VERCEL_OIDC_TOKEN: bad });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems).toEqual([
      "environment: VERCEL_OIDC_TOKEN: expected a Vercel OIDC token (a JWT whose payload has owner_id and project_id)",
    ]);
    expect(parsed.problems.join("")).not.toContain(bad);
    expect(oidcClaims("not-a-jwt")).toBeNull();
  });

  it("routes through CLAWRUN_VERCEL_API_URL (trailing slashes dropped) and checks it is a URL", () => {
    const triple = { VERCEL_TOKEN: "t", VERCEL_TEAM_ID: "team", VERCEL_PROJECT_ID: "prj" };
    const parsed = env({ ...triple, CLAWRUN_VERCEL_API_URL: "http://127.0.0.1:9/base//" });
    expect(parsed.ok && parsed.value.apiUrl).toBe("http://127.0.0.1:9/base");
    const bad = env({ ...triple, CLAWRUN_VERCEL_API_URL: "ftp://x" });
    expect(bad.ok ? [] : bad.problems).toEqual([
      "environment: CLAWRUN_VERCEL_API_URL: expected an http(s) URL",
    ]);
  });

  it("is refused at start with the variables named when the provider is chosen", () => {
    const { config } = parseConfigText(JSON.stringify({ sandbox: { provider: "vercel" } }));
    const start = (vars: Record<string, string>) =>
      buildProvider(config, readEnv(vars, "/srv/app"), pino({ level: "silent" }));
    expect(() => start({ VERCEL_TEAM_ID: "team" })).toThrow(EnvError);
    expect(() => start({ VERCEL_TEAM_ID: "team" })).toThrow(
      "environment: VERCEL_TOKEN is not set (set together with VERCEL_TEAM_ID (all three or none)) (the vercel provider needs it)",
    );
    const oidc = fakeOidcToken({ owner_id: "team_o", project_id: "prj_o" });
    expect(start({ VERCEL_OIDC_TOKEN: oidc })).toBeInstanceOf(VercelProvider);
  });
});

describe("clawrun.json sandbox.vercel", () => {
  it("defaults to snapshot mode with the Hobby plan's 45-minute cap", () => {
    expect(vercelConfigSchema.parse({})).toEqual({
      mode: "snapshot",
      maxTimeoutMinutes: 45,
      keepLastSnapshots: 3,
      keepStopped: 20,
      maxStateArchiveMiB: 8,
    });
  });

  it.each([
    [
      { mode: "forever" },
      'sandbox.vercel.mode: expected "snapshot" or "persistent", got "forever"',
    ],
    [
      { maxTimeoutMinutes: 0 },
      "sandbox.vercel.maxTimeoutMinutes: expected a whole number of minutes from 1 to 1440, got 0",
    ],
    [
      { keepLastSnapshots: 11 },
      "sandbox.vercel.keepLastSnapshots: expected a whole number from 1 to 10, got 11",
    ],
    [
      { maxStateArchiveMiB: 65 },
      "sandbox.vercel.maxStateArchiveMiB: expected a whole number of MiB from 0 to 64, got 65",
    ],
    [
      { region: "US East" },
      'sandbox.vercel.region: expected a Vercel region id such as "iad1", got "US East"',
    ],
    [
      { runtime: "node24", image: "vercel/sandbox/node:24" },
      'sandbox.vercel.image: set either "runtime" or "image", not both',
    ],
    [{ vcpus: 4 }, 'sandbox.vercel: unknown key "vcpus" (not part of the schema)'],
  ])("refuses %j with a clear message", (section, message) => {
    const text = JSON.stringify({ sandbox: { provider: "vercel", vercel: section } });
    expect(() => parseConfigText(text)).toThrow(message);
  });

  it("accepts a persistent setup for a Pro plan", () => {
    const { config } = parseConfigText(
      JSON.stringify({
        sandbox: {
          provider: "vercel",
          vercel: { mode: "persistent", runtime: "node24", region: "fra1", maxTimeoutMinutes: 300 },
        },
      }),
    );
    expect(config.sandbox.vercel).toMatchObject({ mode: "persistent", maxTimeoutMinutes: 300 });
  });
});
