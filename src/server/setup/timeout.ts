import type { CheckResult } from "./checklist";

/** How long any set-up or health check may take: /api/health answers within it. */
export const CHECK_TIMEOUT_MS = 3_000;

/** The platform's own words for a timeout (AbortSignal.timeout's reason). */
const DEFAULT_MESSAGE = "The operation was aborted due to timeout";

/**
 * Runs `fn` with a signal that aborts after `ms`, and stops waiting then even when `fn`
 * ignores the signal (a store ping takes none). The timeout is a DOMException named
 * "TimeoutError" carrying `message`, the signal's reason too, so a fetch aborted by it fails
 * with the same error. The timer is cleared as soon as `fn` settles: no check leaves one
 * behind to hold the process open.
 */
export async function withTimeout<T>(
  fn: (signal: AbortSignal) => Promise<T>,
  ms: number,
  message = DEFAULT_MESSAGE,
): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const reason = new DOMException(message, "TimeoutError");
      // Reject first: the caller hears the timeout, not whatever `fn` makes of the abort.
      reject(reason);
      controller.abort(reason);
    }, ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => fn(controller.signal)), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One check within CHECK_TIMEOUT_MS: "ok in N ms", or what `failed` makes of the error (each
 * caller keeps its own words for a failure).
 */
export async function timedCheck(
  fn: (signal: AbortSignal) => Promise<unknown>,
  failed: (err: unknown) => CheckResult,
  message?: string,
): Promise<CheckResult> {
  const started = Date.now();
  try {
    await withTimeout(fn, CHECK_TIMEOUT_MS, message);
    return { ok: true, detail: `ok in ${Date.now() - started} ms` };
  } catch (err) {
    return failed(err);
  }
}
