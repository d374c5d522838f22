import { afterEach } from "vitest";

/**
 * Prints the end of a server's output after a failed test in this file: a timing-bound failure
 * seen once in a full run is otherwise gone without a trace (the servers log at warn; set
 * CLAWRUN_TEST_LOG_LEVEL=info or debug for more).
 */
export function printOutputOnFailure(
  what: string,
  output: () => string | undefined,
  chars = 6_000,
): void {
  afterEach((ctx) => {
    if (ctx.task.result?.state !== "fail") return;
    const text = output() ?? "";
    console.error(`--- ${what} output (last ${chars} characters) ---\n${text.slice(-chars)}`);
  });
}
