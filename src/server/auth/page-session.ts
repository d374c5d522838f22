import { cookies } from "next/headers";
import { getContext } from "../context";
import { sessionSecrets } from "./operator";
import { SESSION_COOKIE, verifySession } from "./session";

/** For server components: is the visitor a signed-in operator? */
export async function hasOperatorSession(): Promise<boolean> {
  const ctx = await getContext();
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  return (await verifySession(token, sessionSecrets(ctx))).ok;
}
