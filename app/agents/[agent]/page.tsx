import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { hasOperatorSession } from "@/src/server/auth/page-session";
import { listAgents } from "@/src/server/compose/context";
import { Dashboard } from "../../_dashboard/dashboard";
import { SetupScreen } from "../../_setup/setup-screen";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ agent: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { agent } = await params;
  return { title: `${decodeURIComponent(agent)} · ClawRun` };
}

/**
 * One agent's dashboard in a deployment with several (docs/several-agents.md): the same
 * panels as `/`, its calls under `/api/agents/<name>/…`. The default agent has one too, so
 * every row of the fleet view links somewhere. An unknown name is a 404 page.
 */
export default async function AgentPage({ params }: Props) {
  const session = await hasOperatorSession().catch(() => null);
  if (session === null) return <SetupScreen />;
  if (!session) redirect("/login");
  const name = decodeURIComponent((await params).agent);
  const agent = (await listAgents()).find((a) => a.name === name);
  if (!agent) notFound();
  return <Dashboard agent={agent} />;
}
