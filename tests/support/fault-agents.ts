import { signatureHeaders } from "../../src/protocol/signing";
import type { Acknowledged } from "./fault-checks";

/**
 * Daemons for the fault suite, run by the `command` agent as `node -e <script>`. The slow one
 * keeps the echo agent's conversation files (`conversations/<name>.jsonl`, one line per
 * message id, appended once) so the suite's exactly-once check reads it the same way, and
 * holds each answer for a while after storing the message: a window in which a fault can
 * strike mid-delivery (stored by the agent, not yet acknowledged to ClawRun). `seenHoldMs`:
 * how long it holds the answer to a message it had already stored (a redelivery).
 */
export function slowEchoAgent(holdMs: number, timeoutMs = 30_000, seenHoldMs = holdMs) {
  const script = `
const http = require("http"), fs = require("fs"), path = require("path");
const dir = path.join(process.env.HOME || process.cwd(), "conversations");
fs.mkdirSync(dir, { recursive: true });
http.createServer((q, s) => {
  if (q.method !== "POST") { s.end("ok"); return; }
  let b = ""; q.on("data", (c) => (b += c)); q.on("end", () => {
    const m = JSON.parse(b), f = path.join(dir, m.conversation + ".jsonl");
    const seen = fs.existsSync(f) && fs.readFileSync(f, "utf8").split("\\n").some((l) => l && JSON.parse(l).id === m.id);
    if (!seen) fs.appendFileSync(f, JSON.stringify({ id: m.id, text: m.text }) + "\\n");
    setTimeout(() => { s.setHeader("content-type", "application/json"); s.end(JSON.stringify({ reply: "ok " + m.id })); }, seen ? ${seenHoldMs} : ${holdMs});
  });
}).listen(process.env.PORT);`;
  return {
    type: "command",
    command: "node",
    args: ["-e", script],
    delivery: { path: "/message", format: "json", timeoutMs },
  };
}

/** Listens (so it is healthy) but never answers a delivery. */
export function hangingAgent(timeoutMs: number) {
  const script = `require("http").createServer((q, s) => { if (q.method !== "POST") s.end("ok"); }).listen(process.env.PORT)`;
  return {
    type: "command",
    command: "node",
    args: ["-e", script],
    delivery: { path: "/message", format: "json", timeoutMs },
  };
}

/** Runs but never opens its port: never healthy. */
export const neverHealthyAgent = {
  type: "command",
  command: "node",
  args: ["-e", "setInterval(() => {}, 1 << 30)"],
};

/** Exits at once, every time: the supervisor restarts it until it gives up. */
export const crashingAgent = {
  type: "command",
  command: "node",
  args: ["-e", "console.error('fatal: no config'); process.exit(3)"],
};

/**
 * POSTs a signed generic-webhook message like a platform: a 5xx is retried (as platforms do)
 * until `retryUntil`; a 2xx means acknowledged, and only then is it recorded in `acked`.
 * Returns every status seen, in order.
 */
export async function postMessage(
  url: string,
  secret: string,
  msg: { id: string; conversation: string; text: string },
  acked: Acknowledged,
  retryUntil = 0,
): Promise<number[]> {
  const statuses: number[] = [];
  const raw = JSON.stringify(msg);
  for (;;) {
    const status = await fetch(`${url}/api/webhooks/generic`, {
      method: "POST",
      body: raw,
      headers: { "content-type": "application/json", ...signatureHeaders(secret, raw) },
    }).then(
      async (r) => {
        await r.arrayBuffer();
        return r.status;
      },
      () => 0, // the server is down: no answer at all
    );
    statuses.push(status);
    if (status >= 200 && status < 300) {
      acked.add(msg.conversation, msg.id);
      return statuses;
    }
    if (Date.now() > retryUntil) return statuses;
    await new Promise((r) => setTimeout(r, 250));
  }
}
