"use client";

import { useEffect, useState } from "react";
import type { SetupItem } from "@/src/server/setup/checklist";
import styles from "./setup.module.css";

/** How often the checklist asks /api/health again (a variable set and redeployed turns green). */
const REFRESH_MS = 15_000;

/**
 * The setup checklist (docs/deploy.md, "The setup checklist"), read from /api/health: each
 * item with the exact variable or step that fixes it. `always`: the stand-alone setup screen
 * shows it even when everything is green; inside the dashboard it appears only while
 * something is open.
 */
export function SetupChecklist({ always = false }: { always?: boolean }) {
  const [items, setItems] = useState<SetupItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let stopped = false;
    const load = async () => {
      try {
        const res = await fetch("/api/health", { cache: "no-store" });
        const body = (await res.json()) as { setup?: SetupItem[] };
        if (!stopped) {
          setItems(body.setup ?? []);
          setError(null);
        }
      } catch {
        if (!stopped) setError("Cannot reach the ClawRun server.");
      }
    };
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);

  // An unknown item (its check timed out) is not something to do: it is asked again shortly.
  const open = (items ?? []).filter((i) => !i.ok && !i.unknown);
  if (!always && open.length === 0) return null;
  return (
    <section className={styles.setup} aria-labelledby="setup-title" data-testid="setup-checklist">
      <h2 id="setup-title">Set-up checklist</h2>
      {error ? <p className="error">{error}</p> : null}
      {items === null ? (
        <p className="muted">Checking…</p>
      ) : (
        <>
          <p className="muted small">
            {open.length === 0
              ? "Everything is in place."
              : `${open.length} item${open.length > 1 ? "s" : ""} to do. Set the variables (on Vercel in the project's settings, then redeploy; locally in the environment, then restart the server); this list refreshes by itself.`}
          </p>
          <ul className={styles.list}>
            {items.map((item) => (
              <SetupRow key={item.id} item={item} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function SetupRow({ item }: { item: SetupItem }) {
  const state = item.ok
    ? styles.ok
    : item.unknown || item.need === "recommended"
      ? styles.recommended
      : styles.open;
  return (
    <li className={`${styles.item} ${state}`} data-testid={`setup-${item.id}`} data-ok={item.ok}>
      <span className={styles.mark} aria-hidden="true">
        {item.ok ? "✓" : item.unknown ? "?" : item.need === "recommended" ? "!" : "✗"}
      </span>
      <span>
        {item.label}
        <span className={styles.srOnly}>
          {item.ok ? " (done)" : item.unknown ? " (unknown)" : " (to do)"}
        </span>
      </span>
      <span className={`${styles.detail} muted`}>{item.detail}</span>
      {item.fix ? (
        <span className={styles.fix}>
          Fix: <code>{item.fix}</code>
        </span>
      ) : null}
    </li>
  );
}
