/**
 * `npm run channels -- [name ...]`: points each configured chat platform at this deployment
 * where the platform needs ClawRun to do it (e.g. Discord: the /ask command and the
 * interactions endpoint), then prints every channel's status. Run it with the deployment's
 * environment (CLAWRUN_PUBLIC_URL = its public URL, the channels' tokens), e.g. after
 * `vercel env pull`. Exit 1 when a registration failed.
 */
import { createAppContext } from "../src/server/context";

async function main(): Promise<number> {
  const ctx = await createAppContext();
  try {
    const wanted = process.argv.slice(2);
    const unknown = wanted.filter((n) => !ctx.channels.has(n));
    if (unknown.length > 0) {
      console.error(
        `not configured in clawrun.json: ${unknown.join(", ")} (configured: ${[...ctx.channels.keys()].join(", ") || "none"})`,
      );
      return 2;
    }
    let failed = false;
    for (const [name, channel] of ctx.channels) {
      if (wanted.length > 0 && !wanted.includes(name)) continue;
      if (channel.register) {
        const r = await channel.register(AbortSignal.timeout(60_000));
        console.log(`${name}: ${r.ok ? "registered" : "NOT registered"}: ${r.detail}`);
        failed ||= !r.ok;
      }
      const s = await channel.status(AbortSignal.timeout(30_000));
      const missing = s.missingEnv.length > 0 ? `; missing ${s.missingEnv.join(", ")}` : "";
      const registered = s.webhookRegistered === null ? "n/a" : s.webhookRegistered ? "yes" : "no";
      console.log(
        `${name}: webhook ${s.webhookUrl}, registered: ${registered}${missing}; ${s.detail}`,
      );
    }
    return failed ? 1 : 0;
  } finally {
    await ctx.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
