import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { hasOperatorSession } from "@/src/server/auth/page-session";
import { listAgents } from "@/src/server/compose/context";
import { fleetMembers, fleetRows } from "@/src/server/dashboard/fleet-members";
import { Dashboard } from "./_dashboard/dashboard";
import { FleetView } from "./_fleet/fleet-view";
import { SetupChecklist } from "./_setup/setup-checklist";
import { SetupScreen } from "./_setup/setup-screen";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Dashboard · ClawRun" };

/**
 * The operator dashboard; the data comes from the operator JSON API, pushed to the client.
 * A deployment with several agents opens on the fleet (each agent's own at /agents/<name>).
 */
export default async function Home() {
  // A deployment that cannot start yet shows what to set instead of an error.
  const session = await hasOperatorSession().catch(() => null);
  if (session === null) return <SetupScreen />;
  if (!session) redirect("/login");
  // A config the agents cannot be read from shows the one dashboard, which explains it.
  const agents = await listAgents().catch(() => []);
  if (agents.length > 1) {
    // The rows come with the HTML (at most four store reads per agent, docs/api.md), so the
    // table paints before the page's script runs; the stream keeps them live from there.
    const rows = await fleetMembers()
      .then(fleetRows)
      .catch(() => null);
    return (
      <>
        <SetupChecklist />
        <FleetView initialRows={rows} />
      </>
    );
  }
  return (
    <>
      <SetupChecklist />
      <Dashboard />
    </>
  );
}
