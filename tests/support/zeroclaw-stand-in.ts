/**
 * A stand-in for the `zeroclaw` binary (its release cannot be downloaded here), bundled by
 * tests into one executable file and served as a release archive, so ClawRun's real install
 * (download, SHA-256 check, extract), launcher, sidecar and lifecycle run it as they would run
 * ZeroClaw. It implements only what ClawRun uses (docs/agents/zeroclaw.md):
 *   zeroclaw --version                        -> "zeroclaw <pinned version>"
 *   zeroclaw daemon -p <port> --host <host>   -> the fake gateway (tests/support/fake-zeroclaw.ts)
 *     configured from $ZEROCLAW_CONFIG_DIR/config.toml (paired token hashes, agents, model),
 *     keeping session memory under $ZEROCLAW_CONFIG_DIR/data; it refuses to start without
 *     the model key in `ZEROCLAW_providers__models__<family>__<alias>__api_key`.
 * STANDIN_UNPAIRED_MS delays readiness (see fake-zeroclaw's `unpairedForMs`).
 * STANDIN_ASK_MODEL=1 makes each message one model call to the provider entry's `uri` with its
 * key, as ZeroClaw's providers do: OpenAI-shaped families POST `<uri>/chat/completions` with a
 * bearer token, `anthropic` POSTs `<uri>/v1/messages` with `x-api-key`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { ZEROCLAW_VERSION } from "../../src/server/agents/zeroclaw/install-tool";
import { startFakeZeroClaw } from "./fake-zeroclaw";

function flag(args: string[], names: string[]): string | undefined {
  const i = args.findIndex((a) => names.includes(a));
  return i >= 0 ? args[i + 1] : undefined;
}

function fail(message: string): never {
  console.error(`zeroclaw stand-in: ${message}`);
  process.exit(1);
}

/** One model call in the family's wire shape; the answer's text, or the refusal. */
async function askModel(
  family: string,
  uri: string,
  key: string,
  q: { model: string; message: string },
): Promise<string> {
  const anthropic = family === "anthropic";
  const res = await fetch(anthropic ? `${uri}/v1/messages` : `${uri}/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(anthropic
        ? { "x-api-key": key, "anthropic-version": "2023-06-01" }
        : { authorization: `Bearer ${key}` }),
    },
    body: JSON.stringify({
      model: q.model,
      max_tokens: 100,
      messages: [{ role: "user", content: q.message }],
    }),
  });
  const body = (await res.json()) as {
    choices?: { message: { content: string } }[];
    content?: { text: string }[];
    error?: { message: string };
  };
  const text = anthropic ? body.content?.[0]?.text : body.choices?.[0]?.message.content;
  return res.ok && text !== undefined ? text : `${res.status} ${body.error?.message ?? ""}`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === "--version") {
    console.log(`zeroclaw ${ZEROCLAW_VERSION} (clawrun test stand-in)`);
    return;
  }
  if (args[0] !== "daemon")
    fail(`only --version and daemon are implemented, got ${args.join(" ")}`);
  const port = Number(flag(args, ["-p", "--port"]));
  const host = flag(args, ["--host"]) ?? "127.0.0.1";
  const dir = process.env.ZEROCLAW_CONFIG_DIR;
  if (!dir) fail("ZEROCLAW_CONFIG_DIR is not set");
  const config = parse(readFileSync(join(dir, "config.toml"), "utf8")) as {
    providers: { models: Record<string, Record<string, { model: string; uri?: string }>> };
    agents: Record<string, unknown>;
    gateway: { paired_tokens: string[] };
  };
  const [family, aliases] = Object.entries(config.providers.models)[0] ?? [];
  const [alias, provider] = Object.entries(aliases ?? {})[0] ?? [];
  const keyEnv = `ZEROCLAW_providers__models__${family}__${alias}__api_key`;
  if (!process.env[keyEnv]) fail(`no model key in ${keyEnv}`);
  const gateway = await startFakeZeroClaw({
    pairedTokenHashes: config.gateway.paired_tokens,
    agents: Object.keys(config.agents),
    model: provider?.model ?? "unknown",
    port,
    host,
    stateFile: join(dir, "data", "stand-in-sessions.json"),
    unpairedForMs: Number(process.env.STANDIN_UNPAIRED_MS ?? 0),
    ...(process.env.STANDIN_ASK_MODEL === "1"
      ? {
          askModel: (message: string) =>
            askModel(family ?? "", provider?.uri ?? "", process.env[keyEnv] ?? "", {
              model: provider?.model ?? "unknown",
              message,
            }),
        }
      : {}),
  });
  console.log(`zeroclaw stand-in: gateway on ${gateway.baseUrl}`);
  process.once("SIGTERM", () => {
    void gateway.close().then(() => process.exit(0));
  });
}

void main();
