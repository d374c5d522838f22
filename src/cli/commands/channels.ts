import type { Command } from "../command";
import { channelsStatus, registerChannels } from "./channels-run";

/** `clawrun channels register|status`: what they do is in channels-run.ts. */

const notes = [
  "Asks the deployment (CLAWRUN_URL, ADMIN_SECRET), which holds the platform tokens and knows",
  "its public URL. No name: every channel. Exit 1 when a platform refused; 2 for a channel the",
  "deployment does not have.",
];

export const channelsRegisterCommand: Command = {
  name: "channels register",
  summary: "point the chat platforms at this deployment's webhook URLs",
  operands: "[channel…]",
  arity: { min: 0, max: 20 },
  flags: {},
  notes,
  run: (ctx, args) => registerChannels(ctx, args.positionals),
};

export const channelsStatusCommand: Command = {
  name: "channels status",
  summary: "ask each platform where it sends messages",
  operands: "[channel…]",
  arity: { min: 0, max: 20 },
  flags: {},
  notes,
  run: (ctx, args) => channelsStatus(ctx, args.positionals),
};
