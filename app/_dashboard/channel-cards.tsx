"use client";

import { useCallback, useEffect, useState } from "react";
import type { ChannelCard } from "@/src/server/dashboard/channel-cards";
import { useApiPath } from "./agent-context";
import { api } from "./api";
import { formatAge } from "./format";
import { Panel } from "./panel";

/**
 * One card per configured channel. Loaded on its own (a channel's status may ask its
 * platform, e.g. Telegram's getWebhookInfo): once, and again after a registration.
 */
export function ChannelCards({ now }: { now: number }) {
  const [cards, setCards] = useState<ChannelCard[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const at = useApiPath();
  const load = useCallback(async () => {
    try {
      setCards((await api<{ channels: ChannelCard[] }>(at("/api/sandbox/channels"))).channels);
      setError(null);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }, [at]);
  useEffect(() => {
    void load();
  }, [load]);

  const register = async (name: string) => {
    setNotice(`Registering ${name}…`);
    try {
      const r = await api<{ ok: boolean; detail: string }>(
        at(`/api/sandbox/channels/${encodeURIComponent(name)}/register`),
        { method: "POST" },
      );
      setNotice(`${name}: ${r.detail}`);
    } catch (err) {
      setNotice(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
    await load();
  };

  return (
    <Panel id="channels" title="Channels" wide>
      {error ? <p className="error">Could not load the channels: {error}</p> : null}
      {cards === null ? (
        error ? null : (
          <p className="muted">Loading…</p>
        )
      ) : (
        <ul className="channel-cards plain">
          {cards.map((c) => (
            <li
              key={c.name}
              className="channel-card"
              data-testid="channel-card"
              data-channel={c.name}
            >
              <h3>{c.name}</h3>
              <dl className="facts small">
                <dt>Secrets</dt>
                <dd className={c.missingEnv.length ? "error" : ""}>
                  {c.missingEnv.length ? `missing ${c.missingEnv.join(", ")}` : "present"}
                </dd>
                <dt>Webhook</dt>
                <dd>
                  {c.webhookRegistered === null
                    ? "nothing to register"
                    : c.webhookRegistered
                      ? "registered"
                      : "not registered"}
                </dd>
                <dt>Last in</dt>
                <dd className="num">{c.lastIn ? formatAge(c.lastIn, now) : "—"}</dd>
                <dt>Last out</dt>
                <dd className="num">{c.lastOut ? formatAge(c.lastOut, now) : "—"}</dd>
              </dl>
              <p className="muted small">{c.detail}</p>
              {c.lastProblem ? (
                <p className={c.lastProblem.level === "error" ? "error small" : "warn small"}>
                  {formatAge(c.lastProblem.at, now)}: {c.lastProblem.message}
                </p>
              ) : null}
              {c.canRegister && c.webhookRegistered === false ? (
                <button type="button" className="secondary" onClick={() => register(c.name)}>
                  Register webhook
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <p className="small" aria-live="polite">
        {notice ?? ""}
      </p>
    </Panel>
  );
}
