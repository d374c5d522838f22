import { signatureHeaders } from "../../src/protocol/signing";
import type { ClawrunServer } from "./clawrun-server";

/** Sends a signed generic-webhook message, as a chat platform integration would. */
export async function sendMessage(
  server: ClawrunServer,
  msg: { id: string; conversation: string; text: string },
  /** Another agent of the deployment (docs/several-agents.md); default: the default agent. */
  agent?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const raw = JSON.stringify(msg);
  const res = await fetch(`${server.url}/api/webhooks/generic${agent ? `/${agent}` : ""}`, {
    method: "POST",
    body: raw,
    headers: {
      "content-type": "application/json",
      ...signatureHeaders(server.secrets.webhook, raw),
    },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export async function operatorGet<T>(server: ClawrunServer, path: string): Promise<T> {
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${server.secrets.admin}` },
  });
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

export async function instanceStatus(server: ClawrunServer): Promise<string> {
  return (await operatorGet<{ instance: { status: string } }>(server, "/api/sandbox")).instance
    .status;
}

export async function eventsOf(server: ClawrunServer, type: string) {
  const { events } = await operatorGet<{
    events: { type: string; message: string; details: Record<string, unknown> }[];
  }>(server, "/api/sandbox/events?limit=1000");
  return events.filter((e) => e.type === type);
}
