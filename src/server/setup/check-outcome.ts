import type { CheckResult } from "./checklist";

/**
 * What a failed check means. A check that got no answer in time (AbortSignal.timeout) says
 * nothing about the thing checked — on a loaded machine our own URL can be slow to answer —
 * so it is "unknown", never "missing": the checklist must not tell the user to change a
 * variable that may well be right.
 */
export function checkFailure(err: unknown): CheckResult {
  const e = err as { name?: string; message?: string } | null;
  const timedOut =
    e?.name === "TimeoutError" || (e?.name === "AbortError" && /timeout/i.test(e.message ?? ""));
  if (timedOut)
    return {
      ok: false,
      unknown: true,
      detail: "no answer in time (unknown, not missing; checked again shortly)",
    };
  return { ok: false, detail: e?.message ?? String(err) };
}
