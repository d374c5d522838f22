/**
 * ClawRun's reference agent daemon: no AI, no API key. It stores every message in a
 * per-conversation file and echoes it back with the conversation's running count, so the
 * whole sleep/wake loop can be watched (and tested) with state that must survive snapshots.
 */
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import { parseAgentCronReport, parseAgentMessage } from "../protocol/agent-message";
import { resolveListenPort, SANDBOX_PORTS } from "../protocol/constants";
import { ConversationLog } from "./conversation-log";

const MAX_BODY = 1024 * 1024 + 4096;
const workspace = process.env.HOME ?? process.cwd();
const log = new ConversationLog(join(workspace, "conversations"));
const port = process.env.PORT
  ? Number(process.env.PORT)
  : resolveListenPort(SANDBOX_PORTS.daemon, process.env);

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function handleMessage(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let json: unknown;
  try {
    json = JSON.parse(await readBody(req));
  } catch {
    return send(res, 400, { error: "expected a JSON body { id, conversation, text }" });
  }
  const parsed = parseAgentMessage(json);
  if (!parsed.ok) return send(res, 400, { error: parsed.error });
  const { id, conversation, text } = parsed.value;
  const { count, duplicate } = await log.append(conversation, id, text, Date.now());
  const reply = `echo: ${text} (message #${count} in "${conversation}"; ClawRun's reference echo agent, no AI involved)`;
  send(res, 200, { reply, count, conversation, duplicate });
}

/** Cron jobs the agent wants: read from `cron.json` in its workspace (absent → none). */
async function handleCron(res: ServerResponse): Promise<void> {
  let text: string;
  try {
    text = await readFile(join(workspace, "cron.json"), "utf8");
  } catch {
    return send(res, 200, { jobs: [] });
  }
  const parsed = parseAgentCronReport(JSON.parse(text));
  if (!parsed.ok)
    return send(res, 500, {
      error: `cron.json: expected { jobs: [{ name, schedule, message }] } (${parsed.error})`,
    });
  send(res, 200, parsed.value);
}

const server = createServer((req, res) => {
  const path = (req.url ?? "/").split("?")[0];
  const route =
    req.method === "POST" && path === "/message"
      ? handleMessage(req, res)
      : req.method === "GET" && path === "/cron"
        ? handleCron(res)
        : req.method === "GET" && path === "/health"
          ? Promise.resolve(send(res, 200, { ok: true }))
          : Promise.resolve(send(res, 404, { error: `no route ${req.method} ${path}` }));
  route.catch((err: unknown) => send(res, 500, { error: (err as Error).message }));
});

// HOST: the sidecar asks for loopback (the daemon is reached only through its door).
const host = process.env.HOST || "127.0.0.1";
server.listen(port, host, () => {
  console.log(`echo agent listening on ${host}:${port}, workspace ${workspace}`);
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
