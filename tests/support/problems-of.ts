/**
 * The problems a refusal lists (EnvError, ConfigError: both carry `problems`), or a failed
 * test when `run` accepted its input or threw something else.
 */
export function problemsOf(
  run: () => unknown,
  refusal: new (...args: never[]) => Error & { problems: string[] },
): string[] {
  try {
    run();
  } catch (err) {
    if (err instanceof refusal) return err.problems;
    throw err;
  }
  throw new Error(`expected a ${refusal.name}, but the input was accepted`);
}
