import { type ChannelCardView, channelCardsSchema, registeredSchema } from "../api-schemas";
import type { CommandContext } from "../command";
import { CliError, EXIT, type ExitCode } from "../exit-codes";

/**
 * `channels register|status` through the deployment's operator API (docs/api.md), like every
 * other command: the platform tokens stay with the deployment, which also knows its own public
 * URL. Names are checked against the deployment's channels before anything is registered.
 */

export async function registerChannels(ctx: CommandContext, names: string[]): Promise<ExitCode> {
  const picked = await pickChannels(ctx, names);
  let failed = false;
  const rows = [];
  for (const card of picked) {
    if (!card.canRegister) {
      rows.push({ name: card.name, registered: null, detail: "nothing to register" });
      if (!ctx.json) ctx.out(`${card.name}: nothing to register`);
      continue;
    }
    const { body } = await ctx
      .api()
      .post(
        `/api/sandbox/channels/${encodeURIComponent(card.name)}/register`,
        registeredSchema,
        undefined,
        [502],
      );
    failed ||= !body.ok;
    rows.push({ name: card.name, registered: body.ok, detail: body.detail });
    if (!ctx.json)
      ctx.out(`${card.name}: ${body.ok ? "registered" : "NOT registered"}: ${body.detail}`);
  }
  if (ctx.json) ctx.out(JSON.stringify({ channels: rows }));
  return failed ? EXIT.failure : EXIT.ok;
}

export async function channelsStatus(ctx: CommandContext, names: string[]): Promise<ExitCode> {
  const picked = await pickChannels(ctx, names);
  if (ctx.json) {
    ctx.out(JSON.stringify({ channels: picked }));
    return EXIT.ok;
  }
  for (const c of picked) ctx.out(`${c.name}: ${channelState(c)} (${c.webhookUrl}): ${c.detail}`);
  return EXIT.ok;
}

/** Pure: one channel's state in words. */
export function channelState(c: ChannelCardView): string {
  if (c.missingEnv.length > 0) return `missing ${c.missingEnv.join(", ")}`;
  if (c.webhookRegistered === null) return "nothing to register";
  return c.webhookRegistered ? "webhook registered" : "webhook NOT registered";
}

/** The deployment's channels named (all when none is), or exit 2 naming those it lacks. */
async function pickChannels(ctx: CommandContext, names: string[]): Promise<ChannelCardView[]> {
  const { channels } = await ctx.api().get("/api/sandbox/channels", channelCardsSchema);
  const known = new Set(channels.map((c) => c.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new CliError(
      EXIT.usage,
      `not configured at ${ctx.api().where}: ${unknown.join(", ")} (configured: ${[...known].join(", ") || "none"})`,
      "unknown_channel",
    );
  }
  return channels.filter((c) => names.length === 0 || names.includes(c.name));
}
