import { expect } from "vitest";
import { ChannelSendError } from "../../../src/server/channels/types";

/** The ChannelSendError a send ended with (fails the test if it succeeded or threw anything else). */
export async function sendError(p: Promise<unknown>): Promise<ChannelSendError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ChannelSendError);
  return err as ChannelSendError;
}
