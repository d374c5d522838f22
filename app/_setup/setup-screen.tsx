import { SetupChecklist } from "./setup-checklist";

/**
 * Shown instead of the sign-in form or the dashboard while the deployment cannot start
 * (variables missing): what to set, not an error page. It names variables, never values.
 */
export function SetupScreen() {
  return (
    <main className="login">
      <h1>ClawRun</h1>
      <p className="muted">This deployment is not set up yet.</p>
      <SetupChecklist always />
    </main>
  );
}
