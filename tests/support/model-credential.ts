import { modelCredential } from "../../src/server/model-gateway/credential";
import { createStore } from "../../src/server/store";

/**
 * The model credential ClawRun issued to the current boot of a local server's sandbox, made
 * from the state in its SQLite store (the sandbox id and boot id are not secret; the master
 * secret is the test's own). Null while no sandbox runs.
 */
export async function currentModelCredential(server: {
  stateDir: string;
  secrets: { clawrun: string };
}): Promise<string | null> {
  const store = createStore(
    { kind: "sqlite" },
    { instance: "clawrun", stateDir: server.stateDir, onVercel: false },
  );
  try {
    const state = (await store.state.get())?.value;
    if (!state?.sandboxId || !state.bootId) return null;
    return modelCredential(server.secrets.clawrun, {
      sandboxId: state.sandboxId,
      bootId: state.bootId,
    });
  } finally {
    await store.close();
  }
}
