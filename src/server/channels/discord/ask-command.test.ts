import { describe, expect, it } from "vitest";
import { APPLICATION_ID, askInteraction } from "../../../../tests/support/platforms/discord";
import { ASK_COMMAND, ASK_MESSAGE_MAX_LENGTH, ASK_MESSAGE_OPTION } from "./ask-command";
import { interactionSchema } from "./interaction";
import { interpretInteraction } from "./interpret";

describe("/ask", () => {
  it("takes a message as long as Discord allows a string option (6,000 characters)", () => {
    const option = ASK_COMMAND.options.find((o) => o.name === ASK_MESSAGE_OPTION);
    expect(ASK_MESSAGE_MAX_LENGTH).toBe(6000);
    expect(option?.max_length).toBe(6000);
  });

  it("hands the agent a 6,000-character message whole", () => {
    const text = "x".repeat(ASK_MESSAGE_MAX_LENGTH);
    const i = askInteraction({ id: "1", channelId: "42", userId: "77", text });
    const decision = interpretInteraction(interactionSchema.parse(i), {
      applicationId: APPLICATION_ID,
      attachments: "describe",
      now: 0,
    });
    expect(decision).toMatchObject({ kind: "message", text });
  });
});
