/**
 * `npm run bench` runs every benchmark in turn (but the opt-in ones); `npm run bench -- wake
 * store` runs some.
 * Benchmarks measure; they never fail on a number (DESIGN: speed is reported, not asserted).
 */
import { execFileSync } from "node:child_process";

const ALL = {
  store: "state store: heartbeat path latency and commands per heartbeat",
  heartbeat: "heartbeat handling (route handler) latency and store round trips",
  snapshot:
    "local provider snapshot/restore vs tar --zstd (same level) and tar -czf/-xzf of 100 MB / 20,000 files",
  sidecar: "sidecar idle memory/CPU; activity tracking vs a full walk on 100,000 files",
  wake: "message to a sleeping agent: 202 ack and each wake phase over 20 wakes",
  "provider-calls": "each provider call: local vs vercel through the SDK and the API emulator",
  channels:
    "Telegram, WhatsApp, Slack and Discord webhooks to a sleeping agent: ack p50/p99, waiting indicator and reply latency",
  cli: "operator CLI: spawn-to-exit of status, events, send, config check vs bare Node anchors",
  dashboard:
    "dashboard live feed vs the old poller: statuses of a wake/sleep seen and how late; store calls of an open feed",
  "scheduled-wake":
    "a sleeping agent's cron job with no timer: QStash one-shot wakes vs the local tick loop (anchor)",
  load: "1,000 signed messages over 10 s to a sleeping agent across 20 conversations: 202 p50/p99 during the wake, one wake, delivery, server RSS",
  fleet:
    "several agents: a burst to 10 sleeping agents vs one wake; provider calls and store commands per tick of 50 idle agents; fleet dashboard first paint with 50 rows",
  "heartbeat-load":
    "100 heartbeats/s for 60 s through the heartbeat route with the Redis store: p99 and store commands per heartbeat",
  "model-gateway":
    "model gateway overhead vs a direct call to the same local model server: p50 non-streamed, time to first chunk streamed",
  openclaw:
    "OpenClaw (real package): wake-to-reply by phase over 10 wakes, snapshot size and time (~20 min)",
  "vercel-template":
    "Vercel provider via the API emulator: snapshot mode with a layer template + state archive vs persistent mode, by phase and API calls, fresh / 5 / 50 MiB of state",
  "vercel-template-openclaw":
    "the real OpenClaw on the Vercel provider via the API emulator: template make, sleep into a state archive, wake from the template; persistent mode beside it (~15 min)",
} as const;

/** Benchmarks that run only when named (`npm run bench -- openclaw`): they take many minutes. */
const OPT_IN: readonly string[] = ["openclaw", "vercel-template-openclaw"];

const picked = process.argv.slice(2);
const unknown = picked.filter((name) => !(name in ALL));
if (unknown.length > 0) {
  console.error(
    `unknown benchmark(s): ${unknown.join(", ")}; choose from: ${Object.keys(ALL).join(", ")}`,
  );
  process.exit(2);
}
const chosen = picked.length > 0 ? picked : Object.keys(ALL).filter((n) => !OPT_IN.includes(n));
for (const name of chosen) {
  console.log(`\n## ${name}: ${ALL[name as keyof typeof ALL]}\n`);
  execFileSync(process.execPath, ["--import", "tsx", `scripts/bench/${name}.ts`], {
    stdio: "inherit",
  });
}
