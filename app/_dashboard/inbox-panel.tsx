import { formatAge, plural } from "./format";
import { Loading, Panel } from "./panel";
import type { InboxMessage, InboxView } from "./types";
import type { Actions } from "./use-actions";

/** Messages waiting for the agent, and dead letters that ran out of delivery attempts. */
export function InboxPanel({
  inbox,
  actions,
  now,
}: {
  inbox: InboxView | null;
  actions: Actions;
  now: number;
}) {
  return (
    <Panel id="inbox" title="Inbox">
      {inbox ? (
        <>
          <p className="row gap num">
            <span data-testid="inbox-pending">{inbox.counts.pending} pending</span>
            <span className={inbox.counts.dead ? "bad" : undefined} data-testid="inbox-dead">
              {inbox.counts.dead} dead-letter
            </span>
          </p>
          <div className="scroll short">
            {inbox.pending.length === 0 && inbox.dead.length === 0 ? (
              <p className="muted">Nothing waiting: every message was delivered.</p>
            ) : null}
            <MessageList title="Pending" messages={inbox.pending} now={now} />
            <MessageList
              title="Dead letters"
              messages={inbox.dead}
              now={now}
              retry={(m) =>
                actions.run("Retry", `/api/sandbox/inbox/${encodeURIComponent(m.id)}/retry`)
              }
              retryDisabled={actions.busy !== null}
            />
          </div>
        </>
      ) : (
        <Loading />
      )}
    </Panel>
  );
}

function MessageList({
  title,
  messages,
  now,
  retry,
  retryDisabled,
}: {
  title: string;
  messages: InboxMessage[];
  now: number;
  retry?: (m: InboxMessage) => void;
  retryDisabled?: boolean;
}) {
  if (messages.length === 0) return null;
  return (
    <>
      <h3>{title}</h3>
      <ul className="plain">
        {messages.map((m) => (
          <li key={m.id} className="message" data-testid="inbox-message">
            <div className="row spread">
              <span className="small muted">
                {m.channel} · {m.conversation} · {formatAge(m.receivedAt, now)} ·{" "}
                {plural(m.attempts, "attempt")}
              </span>
              {retry ? (
                <button
                  type="button"
                  className="secondary small-button"
                  disabled={retryDisabled}
                  onClick={() => retry(m)}
                  aria-label={`Retry message ${m.id}`}
                >
                  Retry
                </button>
              ) : null}
            </div>
            <p className="clip">{m.text}</p>
            {m.lastError ? <p className="error small">Last error: {m.lastError}</p> : null}
          </li>
        ))}
      </ul>
    </>
  );
}
