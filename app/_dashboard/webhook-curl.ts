/**
 * Where the copy-paste request finds CLAWRUN_WEBHOOK_SECRET. Never its value: the dashboard
 * shows no secret (docs/api.md). A local run keeps a generated one in its secrets file, which
 * the pasted command reads on the same machine; one given in the environment must be in the
 * user's shell too, and the command says so instead of sending an unsigned request (→ 401).
 */
export type WebhookSecretSource = { from: "file"; file: string } | { from: "environment" };

/** Single-quoted for sh/bash/zsh: safe for any path. */
function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** Pure: a request that works when pasted into a shell (a fresh id each time). */
export function webhookCurl(url: string, source: WebhookSecretSource): string {
  const secret =
    source.from === "file"
      ? `SECRET="\${CLAWRUN_WEBHOOK_SECRET:-$(node -p 'require(process.argv[1]).CLAWRUN_WEBHOOK_SECRET' ${shellQuote(source.file)})}"`
      : `SECRET="\${CLAWRUN_WEBHOOK_SECRET:?export CLAWRUN_WEBHOOK_SECRET first: the value this deployment was given}"`;
  return [
    secret,
    // Seconds alone repeat when pasted twice within one: the random part keeps each id new.
    `BODY='{"id":"hello-'$(date +%s)-$RANDOM'","conversation":"me","text":"hello"}'`,
    `TS=$(date +%s000)`,
    `SIG=$(printf '%s' "$TS.$BODY" | openssl dgst -sha256 -hmac "$SECRET" -hex | sed 's/^.* //')`,
    `curl -sS ${shellQuote(url)} -H 'content-type: application/json' \\`,
    `  -H "x-clawrun-timestamp: $TS" -H "x-clawrun-signature: v1=$SIG" -d "$BODY"`,
  ].join("\n");
}
