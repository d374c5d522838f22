"use client";

import { useState } from "react";
import { useAgentName, useApiPath } from "./agent-context";
import { agentWebhookPath } from "./agent-path";
import { api } from "./api";
import type { Overview } from "./types";
import { webhookCurl } from "./webhook-curl";

interface TestAnswer {
  status: string;
  id?: string;
  reply?: string | null;
}

interface TestReply {
  state: "waiting" | "delivered" | "replied" | "failed";
  reply: string | null;
  detail: string | null;
}

/** How long the card waits for a woken agent's reply (a cold wake takes seconds to a minute). */
const REPLY_WAIT_MS = 180_000;

/** Polls the test message's fate until the reply (or a dead letter) is recorded. */
async function waitForReply(
  id: string,
  at: (path: string) => string,
  say: (text: string) => void,
): Promise<string> {
  const deadline = Date.now() + REPLY_WAIT_MS;
  while (Date.now() < deadline) {
    const r = await api<TestReply>(at(`/api/sandbox/test-message/${encodeURIComponent(id)}`));
    if (r.state === "replied") return `Reply: ${r.reply || "(the agent answered nothing)"}`;
    if (r.state === "failed") return `Not delivered: ${r.detail ?? "dead-lettered"}`;
    say(
      r.state === "delivered"
        ? `Delivered ${id}; waiting for the agent's reply…`
        : `Queued as ${id}: the agent is waking for it; its reply shows here…`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return `No reply to ${id} within ${REPLY_WAIT_MS / 1000} s; see the events.`;
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
  const agent = useAgentName();
  const at = useApiPath();
  if (!overview) return null;
  const origin = typeof window === "undefined" ? "" : window.location.origin;
  const url = `${origin}${agentWebhookPath(agent, "generic")}`;
  const curl = webhookCurl(url, overview.webhookSecret);

  const send = async () => {
    setBusy(true);
    setError(null);
    setAnswer(null);
    try {
      const res = await api<TestAnswer>(at("/api/sandbox/test-message"), {
        method: "POST",
        body: {},
      });
      if (res.status === "delivered")
        setAnswer(`Reply: ${res.reply ?? "(the agent answered nothing)"}`);
      else if (res.status === "queued" && res.id)
        setAnswer(await waitForReply(res.id, at, setAnswer));
      else setAnswer(`The server answered “${res.status}”.`);
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
      <p className="small muted" data-testid="curl-secret-note">
        {overview.webhookSecret.from === "file"
          ? "The request below reads the secret from this server's secrets file (run it on this machine), unless your shell already has CLAWRUN_WEBHOOK_SECRET."
          : "The secret was given in this deployment's environment: export CLAWRUN_WEBHOOK_SECRET with that value in your shell first (the dashboard never shows secrets)."}
      </p>
      <p className="small">Or from a shell:</p>
      <pre className="code small" data-testid="webhook-curl">
        {curl}
      </pre>
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
