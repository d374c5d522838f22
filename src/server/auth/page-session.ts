import { cookies } from "next/headers";
import { getContext } from "../compose/context";
import { checkOperatorSession } from "./operator";
import { SESSION_COOKIE } from "./session";

/** For server components: is the visitor a signed-in operator (and not signed out since)? */
export async function hasOperatorSession(): Promise<boolean> {
  const ctx = await getContext();
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  return (await checkOperatorSession(token, ctx.deployment)).ok;
}
