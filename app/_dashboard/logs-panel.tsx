"use client";

import { useState } from "react";
import { Loading, Panel } from "./panel";
import type { LogTail } from "./types";

const MARK: Record<string, string> = {
  "daemon:out": "daemon",
  "daemon:err": "daemon err",
  sidecar: "sidecar",
};
/** Lines shown before "show all": the page scrolls, never a box inside it. */
const FIRST = 40;

/**
 * The sidecar log's last lines, the daemon's own output visibly marked. While a snapshot is
 * taken, or after the sandbox slept or failed, the server sends the lines it kept (with a note
 * saying so); a failed load is this panel's own error.
 */
export function LogsPanel({ logs, error }: { logs: LogTail | null; error?: string }) {
  const [all, setAll] = useState(false);
  const lines = logs ? (all ? logs.lines : logs.lines.slice(-FIRST)) : [];
  return (
    <Panel
      id="logs"
      title="Sidecar log"
      wide
      aside={logs?.sandboxId ? `last ${logs.lines.length} lines of ${logs.sandboxId}` : null}
    >
      {error ? (
        <p className="error" data-testid="logs-error">
          Could not load the log: {error}
        </p>
      ) : null}
      {logs ? (
        <>
          {logs.note ? (
            <p className="muted small" data-testid="logs-note">
              {logs.note}
            </p>
          ) : null}
          {logs.lines.length === 0 ? (
            <p className="muted">{logs.note ? "No lines to show." : "The log is empty."}</p>
          ) : (
            <div className="log-box">
              <ol className="log plain" aria-label="Sidecar log lines, oldest first">
                {lines.map((line, n) => (
                  // Lines have no identity of their own; position in this tail is stable per fetch.
                  // biome-ignore lint/suspicious/noArrayIndexKey: see above
                  <li key={n} className={`log-line src-${line.source.replace(":", "-")}`}>
                    <span className="log-mark">{MARK[line.source]}</span>
                    <span className="log-text">{line.text}</span>
                  </li>
                ))}
              </ol>
            </div>
          )}
          {logs.lines.length > FIRST ? (
            <button type="button" className="secondary" onClick={() => setAll(!all)}>
              {all ? `Show the last ${FIRST} lines` : `Show all ${logs.lines.length} lines`}
            </button>
          ) : null}
        </>
      ) : error ? null : (
        <Loading />
      )}
    </Panel>
  );
}
