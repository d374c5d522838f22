/** A refused or failed request, with the server's explanation in words. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * fetch for the operator API: JSON in and out, errors turned into ApiError carrying the
 * server's `error.message` (never just a code). Same-origin, so the browser sends the
 * session cookie and the Origin header the CSRF check wants.
 */
export async function api<T>(path: string, init?: { method?: string; body?: unknown }): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: init?.method ?? "GET",
      headers: init?.body === undefined ? undefined : { "content-type": "application/json" },
      body: init?.body === undefined ? undefined : JSON.stringify(init.body),
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, "Cannot reach the ClawRun server. Is it running?");
  }
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, errorMessage(body, res.status));
  return body as T;
}

function errorMessage(body: unknown, status: number): string {
  const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
  if (typeof message === "string" && message) return capitalize(message);
  return `The server refused the request (HTTP ${status}) without saying why; see its log.`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
