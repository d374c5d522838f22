import type { AppContext } from "../../server/app-context";
import type { Channel } from "../../server/channels/types";
import { createAppContext } from "../../server/compose/context";
import { createLogger } from "../../server/logger";
import { startupProblems } from "../../server/setup/startup-check";
import type { CommandContext } from "../command";
import { CliError, EXIT, type ExitCode } from "../exit-codes";

/**
 * Points the chat platforms at this deployment (Telegram setWebhook, Discord's /ask and
 * interactions URL, WhatsApp's app subscription) and asks them where they send messages.
 * It runs here with clawrun.json and the environment of the deployment (the platform
 * tokens are needed), like the server would; CLAWRUN_PUBLIC_URL must be the public URL.
 */

const PLATFORM_TIMEOUT_MS = 30_000;

export function registerChannels(ctx: CommandContext, names: string[]): Promise<ExitCode> {
  return withChannels(ctx, names, async (picked) => {
    let failed = false;
    const rows = [];
    for (const channel of picked) {
      if (!channel.register) {
        rows.push({ name: channel.name, registered: null, detail: "nothing to register" });
        if (!ctx.json) ctx.out(`${channel.name}: nothing to register`);
        continue;
      }
      const r = await channel.register(AbortSignal.timeout(PLATFORM_TIMEOUT_MS));
      failed ||= !r.ok;
      rows.push({ name: channel.name, registered: r.ok, detail: r.detail });
      if (!ctx.json)
        ctx.out(`${channel.name}: ${r.ok ? "registered" : "NOT registered"}: ${r.detail}`);
    }
    if (ctx.json) ctx.out(JSON.stringify({ channels: rows }));
    return failed ? EXIT.failure : EXIT.ok;
  });
}

export function channelsStatus(ctx: CommandContext, names: string[]): Promise<ExitCode> {
  return withChannels(ctx, names, async (picked) => {
    const rows = [];
    for (const channel of picked) {
      const s = await channel.status(AbortSignal.timeout(PLATFORM_TIMEOUT_MS));
      rows.push({ name: channel.name, ...s });
      const state =
        s.missingEnv.length > 0
          ? `missing ${s.missingEnv.join(", ")}`
          : s.webhookRegistered === null
            ? "nothing to register"
            : s.webhookRegistered
              ? "webhook registered"
              : "webhook NOT registered";
      if (!ctx.json) ctx.out(`${channel.name}: ${state} (${s.webhookUrl}): ${s.detail}`);
    }
    if (ctx.json) ctx.out(JSON.stringify({ channels: rows }));
    return EXIT.ok;
  });
}

async function withChannels(
  ctx: CommandContext,
  names: string[],
  work: (picked: Channel[]) => Promise<ExitCode>,
): Promise<ExitCode> {
  let app: AppContext;
  try {
    app = await createAppContext({
      source: ctx.env,
      cwd: ctx.cwd,
      // Warnings go to stderr: stdout is the command's answer (--json stays parseable).
      logger: createLogger({ level: "warn", destination: process.stderr }),
    });
  } catch (err) {
    throw new CliError(EXIT.failure, startupProblems(err).join("\n"), "misconfigured");
  }
  try {
    const unknown = names.filter((n) => !app.channels.has(n));
    if (unknown.length > 0) {
      throw new CliError(
        EXIT.usage,
        `not configured in clawrun.json: ${unknown.join(", ")} (configured: ${[...app.channels.keys()].join(", ") || "none"})`,
        "unknown_channel",
      );
    }
    const picked = [...app.channels.values()].filter(
      (c) => names.length === 0 || names.includes(c.name),
    );
    return await work(picked);
  } finally {
    await app.close();
  }
}
