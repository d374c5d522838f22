import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pino from "pino";
import { conversationFileName } from "../../src/agent-echo/conversation-log";
import { signatureHeaders } from "../../src/protocol/signing";
import { createAppContext } from "../../src/server/compose/context";
import { freePort } from "../../tests/support/free-port";

/**
 * 1,000 signed messages over 10 s to a sleeping agent across 20 conversations, on loopback:
 * the server is its own process (tests/fixtures/server-in-child.ts: the production webhook and
 * heartbeat handlers on a Node HTTP server, sqlite store, local provider, echo agent). Each
 * conversation sends in order (the next message after the previous one's answer, as chat
 * platforms do), paced so the whole burst spans 10 s. Reports the 202 latency p50/p99 while
 * the wake runs and after, how many wakes it took, whether every message reached the agent
 * once and in order (its conversation files), and the server's RSS before and after.
 *   npm run bench -- load        (BENCH_MESSAGES, BENCH_CONVERSATIONS, BENCH_SECONDS)
 */

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1_000);
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

/** The burst as a platform sends it: per conversation in order, paced over SECONDS. */
async function sendBurst(url: string, webhookSecret: string) {
  const sent = new Map<string, string[]>();
  const latencies: { at: number; ms: number }[] = [];
  const statuses = new Map<number, number>();
  const t0 = performance.now();
  const perConversation = Math.ceil(MESSAGES / CONVERSATIONS);
  const gapMs = (SECONDS * 1000) / perConversation;
  await Promise.all(
    Array.from({ length: CONVERSATIONS }, async (_, c) => {
      const conversation = `conv-${c}`;
      const ids: string[] = [];
      sent.set(conversation, ids);
      for (let i = 0; i < perConversation && c + i * CONVERSATIONS < MESSAGES; i++) {
        // Spread the conversations over the gap so the load is even, not 20 at once.
        const due = t0 + i * gapMs + (c * gapMs) / CONVERSATIONS;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const id = `${conversation}-${i}`;
        const raw = JSON.stringify({ id, conversation, text: `message ${i}` });
        const start = performance.now();
        const startedAt = Date.now();
        const res = await fetch(`${url}/api/webhooks/generic`, {
          method: "POST",
          body: raw,
          headers: {
            "content-type": "application/json",
            ...signatureHeaders(webhookSecret, raw),
          },
        });
        await res.arrayBuffer();
        latencies.push({ at: startedAt, ms: performance.now() - start });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.ok) ids.push(id);
      }
    }),
  );
  return { sent, latencies, statuses, t0 };
}

/**
 * The anchor, in the same run: the same burst against a bare Node HTTP server in its own
 * process that reads each body and answers 202 — what this machine's loopback, Node and load
 * (other processes) cost before ClawRun does anything.
 */
async function anchor(): Promise<number[]> {
  const port = await freePort();
  const script = `require("http").createServer((q, s) => { q.resume(); q.on("end", () => { s.statusCode = 202; s.end("{}"); }); }).listen(${port}, "127.0.0.1", () => console.log("listening"))`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    await new Promise<void>((resolve) =>
      child.stdout?.on("data", (d: Buffer) => d.toString().includes("listening") && resolve()),
    );
    const { latencies } = await sendBurst(`http://127.0.0.1:${port}`, "anchor-secret-0123456789");
    return latencies.map((l) => l.ms);
  } finally {
    child.kill("SIGKILL");
  }
}

const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN;
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "clawrun-bench-load-"));
  writeFileSync(join(dir, "clawrun.json"), "{}");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const webhookSecret = randomBytes(24).toString("hex");
  const source: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    CLAWRUN_STATE_DIR: dir,
    CLAWRUN_CONFIG: join(dir, "clawrun.json"),
    CLAWRUN_PUBLIC_URL: url,
    CLAWRUN_LOCAL_TICK: "0",
    CLAWRUN_SECRET: randomBytes(24).toString("hex"),
    ADMIN_SECRET: randomBytes(24).toString("hex"),
    CRON_SECRET: randomBytes(24).toString("hex"),
    CLAWRUN_WEBHOOK_SECRET: webhookSecret,
  };
  // The bench's own view of the same deployment: to set up and to check, not to serve.
  const ctx = await createAppContext({ source, logger: pino({ level: "silent" }) });
  let server: ChildProcess | null = null;
  try {
    await ctx.manager.wake({ reason: "bench setup", trigger: "operator" });
    const slept = await ctx.manager.sleep("bench setup");
    if (slept.status !== "sleeping") throw new Error(`setup: could not sleep (${slept.status})`);
    const eventsBefore = (await ctx.store.events.list(10_000)).length;

    server = spawn(
      process.execPath,
      ["--import", "tsx", "tests/fixtures/server-in-child.ts", JSON.stringify({ source, port })],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const child = server;
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on("data", (d: Buffer) => d.toString().includes("listening") && resolve());
      child.once("exit", (code) => reject(new Error(`server exited (${code})`)));
    });
    const pid = child.pid as number;
    const rssBefore = rss(pid);
    const bare = await anchor();

    const { sent, latencies, statuses, t0 } = await sendBurst(url, webhookSecret);
    const sendSeconds = (performance.now() - t0) / 1000;

    // Delivered: nothing pending, then compare the agent's files with what was acknowledged.
    const deadline = Date.now() + 120_000;
    while ((await ctx.store.inbox.count()).pending > 0) {
      if (Date.now() > deadline) throw new Error("messages still pending after 120 s");
      await new Promise((r) => setTimeout(r, 200));
    }
    const deliveredAt = (performance.now() - t0) / 1000;
    const allEvents = await ctx.store.events.list(10_000);
    const events = allEvents.slice(0, allEvents.length - eventsBefore); // newest first
    const running = events.filter((e) => e.type === "status.running");
    // Answers sent before the agent was running again were answered while the wake ran.
    const wakeEnd = running.length ? Math.min(...running.map((e) => e.at)) : Date.now();
    const state = (await ctx.manager.getState()).value;
    const root = (await ctx.provider.get(state.sandboxId as string)).root;
    let inOrder = 0;
    let wrong = 0;
    for (const [conversation, ids] of sent) {
      const file = join(root, "conversations", `${conversationFileName(conversation)}.jsonl`);
      const got = readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { id: string }).id);
      if (JSON.stringify(got) === JSON.stringify(ids)) inOrder++;
      else wrong++;
    }
    const rssAfter = rss(pid);
    const during = latencies.filter((l) => l.at < wakeEnd).map((l) => l.ms);
    const after = latencies.filter((l) => l.at >= wakeEnd).map((l) => l.ms);
    const all = latencies.map((l) => l.ms);
    const f = (n: number) => n.toFixed(1);
    console.log(
      `${latencies.length} messages in ${sendSeconds.toFixed(1)} s across ${CONVERSATIONS} conversations to a sleeping agent; all delivered ${deliveredAt.toFixed(1)} s after the first\n`,
    );
    console.log("| measure                              | value |");
    console.log("| ------------------------------------ | ----- |");
    console.log(
      `| answers                              | ${[...statuses].map(([s, n]) => `${n} × ${s}`).join(", ")} |`,
    );
    console.log(`| wakes (status.running events)        | ${running.length} |`);
    console.log(
      `| conversations delivered once in order | ${inOrder} of ${sent.size}${wrong ? ` (${wrong} differ)` : ""} |`,
    );
    console.log(
      `| 202 p50 / p99 during the wake (${during.length}) | ${f(pct(during, 0.5))} / ${f(pct(during, 0.99))} ms |`,
    );
    console.log(
      `| 202 p50 / p99 after the wake (${after.length})  | ${f(pct(after, 0.5))} / ${f(pct(after, 0.99))} ms |`,
    );
    const slowest = [...latencies].sort((a, b) => b.ms - a.ms).slice(0, 3);
    const first = Math.min(...latencies.map((l) => l.at));
    console.log(
      `| slowest 3 (sent at, after the first)  | ${slowest.map((l) => `${f(l.ms)} ms (+${l.at - first} ms)`).join(", ")} |`,
    );
    console.log(
      `| 202 p50 / p99 overall                | ${f(pct(all, 0.5))} / ${f(pct(all, 0.99))} ms |`,
    );
    console.log(
      `| anchor: bare Node server p50 / p99   | ${f(pct(bare, 0.5))} / ${f(pct(bare, 0.99))} ms |`,
    );
    console.log(
      `| load average (1 min) at the end      | ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores |`,
    );
    console.log(
      `| server RSS before / after            | ${rssBefore.toFixed(0)} / ${rssAfter.toFixed(0)} MiB |`,
    );
  } finally {
    server?.kill("SIGKILL");
    for (const s of await ctx.provider.list())
      await (await ctx.provider.get(s.id)).stop().catch(() => undefined);
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
