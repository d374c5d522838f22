/**
 * A `command` daemon that only answers "ok": its `model` section is what makes it a user of
 * ClawRun's model gateway (it gets CLAWRUN_MODEL_URL / CLAWRUN_MODEL_KEY and, under a
 * restrictive network policy, ClawRun's host). The key's variable is never read.
 */
export const GATEWAY_USER_AGENT = {
  type: "command",
  command: "node",
  args: ["-e", "require('http').createServer((q, s) => s.end('ok')).listen(process.env.PORT)"],
  model: { provider: "openai", model: "gpt-4o-mini", apiKey: { fromEnv: "UNUSED_KEY" } },
};
