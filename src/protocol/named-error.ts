/**
 * `instanceof` by error name. Next.js instantiates modules once per route bundle, while the
 * composition root is shared on globalThis; an error thrown by the shared store is then of
 * another copy of its class than the one a route imports. Classes that cross that boundary
 * define `static [Symbol.hasInstance]` with this, so `instanceof` stays true to its meaning.
 */
export function isErrorNamed(value: unknown, name: string): boolean {
  return value instanceof Error && value.name === name;
}
