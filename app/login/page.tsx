import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { hasOperatorSession } from "@/src/server/auth/page-session";
import { SetupScreen } from "../_setup/setup-screen";
import { LoginForm } from "./login-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in · ClawRun" };

export default async function LoginPage() {
  // A deployment that cannot start yet (e.g. no ADMIN_SECRET) shows what to set instead.
  const session = await hasOperatorSession().catch(() => null);
  if (session === null) return <SetupScreen />;
  if (session) redirect("/");
  return (
    <main className="login">
      <h1>ClawRun</h1>
      <p className="muted">Sign in with the operator secret (ADMIN_SECRET).</p>
      <LoginForm />
      <p className="muted small">
        Running locally? The first <code>npm run dev</code> printed it, and it is kept in{" "}
        <code>.clawrun/secrets.json</code>.
      </p>
    </main>
  );
}
