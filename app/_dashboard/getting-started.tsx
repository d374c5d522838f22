"use client";

import { useState } from "react";
import { api } from "./api";
import type { Overview } from "./types";

interface TestAnswer {
  status: string;
  id?: string;
  reply?: string | null;
}

/**
 * First run: where messages go, a copy-paste request, and a button that sends a signed test
 * message through the real webhook path and shows the reply. Open while the agent has never
 * started; a closed section later.
 */
export function GettingStarted({ overview }: { overview: Overview | null }) {
  const [answer, setAnswer] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Open on a never-started agent; after that the operator decides (a status change must not
  // snap it shut under their cursor).
  const [open, setOpen] = useState<boolean | null>(null);
  if (!overview) return null;
  const origin = typeof window === "undefined" ? "" : window.location.origin;
  const url = `${origin}/api/webhooks/generic`;
  const curl = [
    `BODY='{"id":"hello-1","conversation":"me","text":"hello"}'`,
    `TS=$(date +%s000)`,
    `SIG=$(printf '%s' "$TS.$BODY" | openssl dgst -sha256 -hmac "$CLAWRUN_WEBHOOK_SECRET" -hex | sed 's/^.* //')`,
    `curl -sS ${url} -H 'content-type: application/json' \\`,
    `  -H "x-clawrun-timestamp: $TS" -H "x-clawrun-signature: v1=$SIG" -d "$BODY"`,
  ].join("\n");

  const send = async () => {
    setBusy(true);
    setError(null);
    setAnswer(null);
    try {
      const res = await api<TestAnswer>("/api/sandbox/test-message", { method: "POST", body: {} });
      setAnswer(
        res.status === "delivered"
          ? `Reply: ${res.reply ?? "(the agent answered nothing)"}`
          : res.status === "queued"
            ? `Queued as ${res.id}: the agent is waking for it; its reply will show in the events.`
            : `The server answered “${res.status}”.`,
      );
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <details
      className="card wide getting-started"
      open={open ?? overview.instance.status === "uninitialized"}
      onToggle={(e) => setOpen(e.currentTarget.open)}
      data-testid="getting-started"
    >
      <summary>
        <h2 className="inline">Getting started</h2>
      </summary>
      <p>
        Chat platforms (and anything else) send messages to{" "}
        <code data-testid="webhook-url">{url}</code>, signed with{" "}
        <code>CLAWRUN_WEBHOOK_SECRET</code>. The first message starts the agent.
      </p>
      <p className="small">Or from a shell:</p>
      <pre className="code small">{curl}</pre>
      <div className="row wrap">
        <button type="button" onClick={send} disabled={busy} data-testid="test-message">
          {busy ? "Sending…" : "Send a test message"}
        </button>
        <p className="small" aria-live="polite" data-testid="test-message-answer">
          {answer ?? ""}
        </p>
      </div>
      <p className="error" role="alert" data-testid="test-message-error">
        {error ?? ""}
      </p>
    </details>
  );
}
