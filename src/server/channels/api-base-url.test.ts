import { describe, expect, it } from "vitest";
import { apiBaseUrlSchema } from "./api-base-url";
import { discordChannel } from "./discord";
import { slackChannel } from "./slack";
import { telegramChannel } from "./telegram";
import { whatsappChannel } from "./whatsapp";

const discordIds = { applicationId: "123456789012345678", publicKey: "ab".repeat(32) };
const apiRoot = {
  telegram: (v?: string) => telegramChannel.configSchema.parse({ apiBaseUrl: v }).apiBaseUrl,
  whatsapp: (v?: string) => whatsappChannel.configSchema.parse({ apiBaseUrl: v }).apiBaseUrl,
  slack: (v?: string) => slackChannel.configSchema.parse({ apiBaseUrl: v }).apiBaseUrl,
  discord: (v?: string) =>
    discordChannel.configSchema.parse({ ...discordIds, apiBaseUrl: v }).apiBaseUrl,
};

describe("channels.<name>.apiBaseUrl", () => {
  it.each([
    ["telegram", "https://api.telegram.org"],
    ["whatsapp", "https://graph.facebook.com"],
    ["slack", "https://slack.com/api"],
    ["discord", "https://discord.com/api/v10"],
  ] as const)("%s: unset, the platform's own API (%s)", (name, root) => {
    expect(apiRoot[name]()).toBe(root);
  });

  it.each([
    ["telegram", "https://proxy.example.com/tg/", "https://proxy.example.com/tg"],
    ["whatsapp", "https://proxy.example.com/", "https://proxy.example.com"],
    ["slack", "https://proxy.example.com/slack", "https://proxy.example.com/slack/api"],
    ["discord", "http://127.0.0.1:9000", "http://127.0.0.1:9000/api/v10"],
  ] as const)("%s: a host (and proxy prefix) like every channel: %s", (name, given, root) => {
    expect(apiRoot[name](given)).toBe(root);
  });

  it.each([
    ["slack", "https://proxy.example.com/api/", "https://proxy.example.com/api"],
    ["discord", "https://proxy.example.com/api/v10", "https://proxy.example.com/api/v10"],
  ] as const)("%s: the older form with the API path still works: %s", (name, given, root) => {
    expect(apiRoot[name](given)).toBe(root);
  });

  it.each(["https://discord.com/api/v9", "https://discord.com/api"])(
    "discord: refuses another API path (%s) instead of doubling it",
    (given) => {
      const result = discordChannel.configSchema.safeParse({ ...discordIds, apiBaseUrl: given });
      expect(result.error?.issues[0]?.path).toEqual(["apiBaseUrl"]);
      expect(result.error?.issues[0]?.message).toBe(
        "expected the API host only, such as https://discord.com (ClawRun adds /api/v10 itself)",
      );
    },
  );

  it("refuses what is not a URL", () => {
    const result = apiBaseUrlSchema({ host: "https://x.example" }).safeParse("slack.com");
    expect(result.error?.issues[0]?.message).toBe("expected an http(s) URL");
  });
});
