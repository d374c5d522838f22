/**
 * A token shaped like a Vercel OIDC token: a JWT whose payload names the team (owner_id) and
 * project (project_id), which is all the SDK and the provider read from it. Not signed: the
 * emulator accepts it by value, as it accepts its access token.
 */
export function fakeOidcToken(claims: Record<string, unknown>): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  return `${part({ alg: "RS256", typ: "JWT" })}.${part(claims)}.signature`;
}
