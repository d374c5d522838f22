import { describe, expect, it } from "vitest";
import { channelWebhookUrl } from "./webhook-url";

describe("channelWebhookUrl", () => {
  it("is the public URL's webhook route", () => {
    expect(channelWebhookUrl({ publicUrl: "https://claw.vercel.app" }, "telegram")).toBe(
      "https://claw.vercel.app/api/webhooks/telegram",
    );
  });

  it("carries the Deployment Protection bypass in the query (platforms send no custom headers)", () => {
    expect(
      channelWebhookUrl(
        { publicUrl: "https://claw.vercel.app", protectionBypass: "s3cr3t/+=" },
        "slack",
      ),
    ).toBe("https://claw.vercel.app/api/webhooks/slack?x-vercel-protection-bypass=s3cr3t%2F%2B%3D");
  });
});
