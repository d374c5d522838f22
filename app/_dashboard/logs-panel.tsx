import { Loading, Panel } from "./panel";
import type { LogTail } from "./types";

const MARK: Record<string, string> = {
  "daemon:out": "daemon",
  "daemon:err": "daemon err",
  sidecar: "sidecar",
};

/** The sidecar log's last lines, the daemon's own output visibly marked. */
export function LogsPanel({ logs }: { logs: LogTail | null }) {
  return (
    <Panel
      id="logs"
      title="Sidecar log"
      wide
      aside={logs?.sandboxId ? `last ${logs.lines.length} lines of ${logs.sandboxId}` : null}
    >
      {logs ? (
        <div className="scroll tall log-box">
          {logs.lines.length === 0 ? (
            <p className="muted">{logs.note ?? "The log is empty."}</p>
          ) : (
            <ol className="log plain" aria-label="Sidecar log lines, oldest first">
              {logs.lines.map((line, n) => (
                // Lines have no identity of their own; position in this tail is stable per fetch.
                // biome-ignore lint/suspicious/noArrayIndexKey: see above
                <li key={n} className={`log-line src-${line.source.replace(":", "-")}`}>
                  <span className="log-mark">{MARK[line.source]}</span>
                  <span className="log-text">{line.text}</span>
                </li>
              ))}
            </ol>
          )}
        </div>
      ) : (
        <Loading />
      )}
    </Panel>
  );
}
