import type { Command } from "../command";

/**
 * `clawrun channels register|status`: what they do is in channels-run.ts, loaded on use
 * (it builds the whole server, which the other commands do not need).
 */

const notes = [
  "Runs on this machine with the deployment's clawrun.json and environment (platform tokens,",
  "CLAWRUN_PUBLIC_URL = the public https URL the platforms can reach). No name: every channel.",
  "Exit 1 when a platform refused; 2 for a channel not configured in clawrun.json.",
];

export const channelsRegisterCommand: Command = {
  name: "channels register",
  summary: "point the chat platforms at this deployment's webhook URLs",
  operands: "[channel…]",
  arity: { min: 0, max: 20 },
  flags: {},
  notes,
  run: async (ctx, args) =>
    (await import("./channels-run")).registerChannels(ctx, args.positionals),
};

export const channelsStatusCommand: Command = {
  name: "channels status",
  summary: "ask each platform where it sends messages",
  operands: "[channel…]",
  arity: { min: 0, max: 20 },
  flags: {},
  notes,
  run: async (ctx, args) => (await import("./channels-run")).channelsStatus(ctx, args.positionals),
};
