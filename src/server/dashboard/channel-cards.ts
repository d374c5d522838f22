import type { AppContext } from "../app-context";
import type { ChannelStatus } from "../channels/types";
import type { LifecycleEvent } from "../domain/events";

/** One configured channel as the dashboard shows it (docs/api.md, GET /api/sandbox/channels). */
export interface ChannelCard extends ChannelStatus {
  name: string;
  /** It can point its platform at this deployment (Telegram, Discord, …). */
  canRegister: boolean;
  /** Last message delivered to the agent, last reply sent (epoch ms). */
  lastIn: number | null;
  lastOut: number | null;
  lastProblem: { at: number; level: string; message: string } | null;
}

/** Pure: a channel's last message in and out and its last warning or error, from the event log. */
export function channelActivity(
  events: readonly LifecycleEvent[],
  channel: string,
): Pick<ChannelCard, "lastIn" | "lastOut" | "lastProblem"> {
  const mine = events.filter((e) => e.details.channel === channel);
  const newest = (pred: (e: LifecycleEvent) => boolean) =>
    mine.filter(pred).reduce<LifecycleEvent | null>((a, e) => (a && a.at >= e.at ? a : e), null);
  const problem = newest((e) => e.level !== "info");
  return {
    lastIn: newest((e) => e.type === "message.delivered")?.at ?? null,
    lastOut: newest((e) => e.type === "message.replied")?.at ?? null,
    lastProblem: problem
      ? { at: problem.at, level: problem.level, message: problem.message }
      : null,
  };
}

/** Every configured channel: its status (secrets, webhook) and recent activity. */
export async function channelCards(ctx: AppContext): Promise<ChannelCard[]> {
  const events = await ctx.store.events.list(500);
  return Promise.all(
    [...ctx.channels.values()].map(async (channel) => {
      let status: ChannelStatus;
      try {
        status = await channel.status(AbortSignal.timeout(5_000));
      } catch (err) {
        status = {
          missingEnv: [],
          webhookRegistered: null,
          webhookUrl: "",
          detail: `status unavailable: ${(err as Error).message}`,
        };
      }
      return {
        name: channel.name,
        ...status,
        canRegister: typeof channel.register === "function",
        ...channelActivity(events, channel.name),
      };
    }),
  );
}

/** Points a channel's platform at this deployment; null when no such channel is configured. */
export async function registerChannel(
  ctx: AppContext,
  name: string,
): Promise<{ ok: boolean; detail: string } | null> {
  const channel = ctx.channels.get(name);
  if (!channel) return null;
  if (!channel.register) return { ok: true, detail: `${name} needs no registration` };
  return channel.register(AbortSignal.timeout(15_000));
}
