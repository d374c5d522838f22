import type { Command } from "../command";
import { agentPrepareCommand } from "./agent";
import { agentsAddCommand, agentsListCommand, agentsRmCommand } from "./agents";
import { channelsRegisterCommand, channelsStatusCommand } from "./channels";
import { configCheckCommand, configShowCommand } from "./config";
import { eventsCommand } from "./events";
import { inboxCommand, inboxRetryCommand } from "./inbox";
import { snapshotCommand, stopCommand, wakeCommand } from "./lifecycle";
import { logsCommand } from "./logs";
import { sendCommand } from "./send";
import { snapshotsCommand, snapshotsDeleteCommand } from "./snapshots";
import { statusCommand } from "./status";
import { usageCommand } from "./usage";

/** Every `clawrun` command, in the order `clawrun --help` lists them. */
export const COMMANDS: readonly Command[] = [
  statusCommand,
  eventsCommand,
  logsCommand,
  sendCommand,
  wakeCommand,
  stopCommand,
  snapshotCommand,
  snapshotsCommand,
  snapshotsDeleteCommand,
  inboxCommand,
  inboxRetryCommand,
  configCheckCommand,
  configShowCommand,
  channelsRegisterCommand,
  channelsStatusCommand,
  usageCommand,
  agentPrepareCommand,
  agentsListCommand,
  agentsAddCommand,
  agentsRmCommand,
];
