import { createServer } from "node:http";
import { verify } from "../../src/protocol/signing";
import { freePort } from "./free-port";

export interface Reply {
  inReplyTo: string;
  conversation: string;
  text: string;
  /** The signature verified with the webhook secret. */
  verified: boolean;
}

/** Stands in for a chat platform's reply endpoint: records the signed replies ClawRun posts. */
export async function startReplyReceiver(
  secret: () => string,
): Promise<{ url: string; replies: Reply[]; stop(): Promise<void> }> {
  const replies: Reply[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const headers = { get: (n: string) => (req.headers[n] as string | undefined) ?? null };
    const check = verify(secret(), headers, raw, Date.now());
    replies.push({
      ...(JSON.parse(raw.toString()) as Omit<Reply, "verified">),
      verified: check.ok,
    });
    res.writeHead(check.ok ? 200 : 401).end();
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${port}/replies`,
    replies,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
