import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { hasOperatorSession } from "@/src/server/auth/page-session";
import { Dashboard } from "./_dashboard/dashboard";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Dashboard · ClawRun" };

/** The operator dashboard; the data comes from the operator JSON API, polled by the client. */
export default async function Home() {
  if (!(await hasOperatorSession())) redirect("/login");
  return <Dashboard />;
}
