"use client";

import { useState } from "react";
import { api } from "./api";

/** Clears the session cookie server-side, then leaves with a full navigation (no cached page). */
export function SignOutButton() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const signOut = async () => {
    setBusy(true);
    setError(null);
    try {
      await api("/api/auth/logout", { method: "POST" });
      window.location.assign("/login");
    } catch (err) {
      setError(`Sign-out failed: ${err instanceof Error ? err.message : String(err)}`);
      setBusy(false);
    }
  };

  return (
    <div className="signout">
      <button
        type="button"
        className="secondary"
        onClick={signOut}
        disabled={busy}
        data-testid="sign-out"
      >
        {busy ? "Signing out…" : "Sign out"}
      </button>
      {error ? (
        <p className="error small" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
