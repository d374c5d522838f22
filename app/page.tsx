import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { hasOperatorSession } from "@/src/server/auth/page-session";
import { Dashboard } from "./_dashboard/dashboard";
import { SetupChecklist } from "./_setup/setup-checklist";
import { SetupScreen } from "./_setup/setup-screen";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Dashboard · ClawRun" };

/** The operator dashboard; the data comes from the operator JSON API, polled by the client. */
export default async function Home() {
  // A deployment that cannot start yet shows what to set instead of an error.
  const session = await hasOperatorSession().catch(() => null);
  if (session === null) return <SetupScreen />;
  if (!session) redirect("/login");
  return (
    <>
      <SetupChecklist />
      <Dashboard />
    </>
  );
}
