import { describe, expect, it } from "vitest";
import { BYPASS_ENV, DAEMON_ENV_ENV, HB_SECRET_ENV } from "../protocol/constants";
import { buildChildEnv, expandArgs, localBinDir } from "./daemon-env";

describe("buildChildEnv", () => {
  const base = {
    [HB_SECRET_ENV]: "s3cret-s3cret",
    PATH: "/usr/bin:/bin",
    HOME: "/sbx",
    GONE: undefined,
  };

  it("drops the heartbeat secret, even when the config's env names it", () => {
    const env = buildChildEnv({ base, root: "/sbx", extra: { [HB_SECRET_ENV]: "x", A: "1" } });
    expect(env[HB_SECRET_ENV]).toBeUndefined();
    expect(env.A).toBe("1");
    expect("GONE" in env).toBe(false);
  });

  it("drops the Deployment Protection bypass too (the agent never needs it)", () => {
    const env = buildChildEnv({ base: { ...base, [BYPASS_ENV]: "bypass" }, root: "/sbx" });
    expect(env[BYPASS_ENV]).toBeUndefined();
  });

  it("drops the JSON bundle of the daemon's environment (it gets the variables one by one)", () => {
    const env = buildChildEnv({ base: { ...base, [DAEMON_ENV_ENV]: '{"K":"v"}' }, root: "/sbx" });
    expect(env[DAEMON_ENV_ENV]).toBeUndefined();
  });

  it("prepends <root>/.local/bin to PATH once and sets PORT", () => {
    const env = buildChildEnv({ base: { PATH: "/sbx/.local/bin:/bin" }, root: "/sbx", port: 4321 });
    expect(env.PATH).toBe("/sbx/.local/bin:/bin");
    expect(env.PORT).toBe("4321");
    expect(buildChildEnv({ base, root: "/sbx" }).PATH).toBe(`${localBinDir("/sbx")}:/usr/bin:/bin`);
  });

  it("keeps a usable PATH when none is set", () => {
    expect(buildChildEnv({ base: {}, root: "/r" }).PATH).toMatch(/^\/r\/\.local\/bin:.*\/usr\/bin/);
  });
});

describe("expandArgs", () => {
  it("replaces {PORT} and {HOST}", () => {
    expect(
      expandArgs(
        ["serve", "--port", "{PORT}", "--bind", "{HOST}", "--url=http://{HOST}:{PORT}/"],
        3000,
        "127.0.0.1",
      ),
    ).toEqual(["serve", "--port", "3000", "--bind", "127.0.0.1", "--url=http://127.0.0.1:3000/"]);
  });
});
