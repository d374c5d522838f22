"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useEffect, useRef, useState } from "react";

/** What to say when the server accepted the secret but the browser kept no session cookie. */
const COOKIE_REFUSED =
  "The secret is right, but your browser did not keep the session cookie, so you would land back here. " +
  "Open the dashboard over https, or on http://localhost, or check that cookies are allowed for this site.";

export function LoginForm() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const alertRef = useRef<HTMLParagraphElement>(null);

  // Keyboard and screen-reader users land on the reason a sign-in failed.
  useEffect(() => {
    if (error) alertRef.current?.focus();
  }, [error]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const secret = String(new FormData(event.currentTarget).get("secret") ?? "");
    setBusy(true);
    setError(null);
    try {
      const res = await fetch("/api/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ secret }),
      });
      if (res.ok) {
        // The cookie is httpOnly: ask the server whether the browser sent it back.
        const check = await fetch("/api/sandbox", { cache: "no-store" });
        if (check.status === 401) {
          setError(COOKIE_REFUSED);
          return;
        }
        router.replace("/");
        router.refresh();
        return;
      }
      const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
      setError(withLocalTime(body?.error?.message ?? `Sign-in failed (${res.status}).`, res));
    } catch {
      setError("Cannot reach the ClawRun server.");
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} className="card stack">
      <label htmlFor="secret">Operator secret</label>
      <input id="secret" name="secret" type="password" autoComplete="current-password" required />
      <button type="submit" disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
      <p
        role="alert"
        className="error"
        aria-live="polite"
        tabIndex={-1}
        ref={alertRef}
        data-testid="login-error"
      >
        {error ?? ""}
      </p>
    </form>
  );
}

/** A lock-out names the time in the operator's own clock (from Retry-After). */
function withLocalTime(message: string, res: Response): string {
  const seconds = Number(res.headers.get("retry-after"));
  if (res.status !== 429 || !Number.isFinite(seconds) || seconds <= 0) return message;
  const at = new Date(Date.now() + seconds * 1000);
  const hhmm = at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hour12: false });
  return `${message} (Your time: ${hhmm}.)`;
}
