/**
 * `npm run channels -- register [name…]` points the chat platforms at this deployment's
 * webhook URLs (Telegram setWebhook; WhatsApp app subscription when channels.whatsapp.appId
 * is set); `npm run channels -- status` asks each platform where it sends messages.
 * Reads clawrun.json and the environment exactly like the server; CLAWRUN_PUBLIC_URL must
 * be the public https URL the platforms can reach.
 */
import { createAppContext } from "../src/server/context";
import { createLogger } from "../src/server/logger";

async function main(): Promise<number> {
  const [command = "status", ...names] = process.argv.slice(2);
  if (command !== "register" && command !== "status") {
    console.error("usage: npm run channels -- <register|status> [channel…]");
    return 2;
  }
  const ctx = await createAppContext({ logger: createLogger({ level: "warn" }) });
  try {
    const picked = [...ctx.channels.values()].filter(
      (c) => names.length === 0 || names.includes(c.name),
    );
    const unknown = names.filter((n) => !ctx.channels.has(n));
    if (unknown.length > 0) {
      console.error(
        `not configured in clawrun.json: ${unknown.join(", ")} (configured: ${[...ctx.channels.keys()].join(", ") || "none"})`,
      );
      return 2;
    }
    let failed = false;
    for (const channel of picked) {
      const signal = AbortSignal.timeout(30_000);
      if (command === "register") {
        if (!channel.register) {
          console.log(`${channel.name}: nothing to register`);
          continue;
        }
        const r = await channel.register(signal);
        failed ||= !r.ok;
        console.log(`${channel.name}: ${r.ok ? "registered" : "NOT registered"}: ${r.detail}`);
      } else {
        const s = await channel.status(signal);
        const state =
          s.missingEnv.length > 0
            ? `missing ${s.missingEnv.join(", ")}`
            : s.webhookRegistered === null
              ? "nothing to register"
              : s.webhookRegistered
                ? "webhook registered"
                : "webhook NOT registered";
        console.log(`${channel.name}: ${state} (${s.webhookUrl}): ${s.detail}`);
      }
    }
    return failed ? 1 : 0;
  } finally {
    await ctx.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`channels: ${(err as Error).message}`);
    process.exit(1);
  },
);
