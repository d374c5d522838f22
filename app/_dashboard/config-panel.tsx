import { Loading, Panel } from "./panel";
import type { ConfigRow } from "./types";

/** The effective configuration and where each value came from (secrets are hidden server-side). */
export function ConfigPanel({ rows }: { rows: ConfigRow[] | null }) {
  return (
    <Panel id="config" title="Effective configuration" wide>
      {rows ? (
        <div className="scroll tall">
          <table className="stack-narrow" data-testid="config-table">
            <caption className="visually-hidden">Configuration values and their sources</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Value</th>
                <th scope="col">Source</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.key}>
                  <th scope="row" className="mono">
                    {r.key}
                  </th>
                  <td className="mono break" data-label="Value">
                    {r.value}
                  </td>
                  <td className="muted" data-label="Source">
                    {r.source}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <Loading />
      )}
    </Panel>
  );
}
