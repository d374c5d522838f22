import type { ChannelKv } from "./types";

/** How long a partly sent reply remembers how far it got (replies are retried well within it). */
const PROGRESS_TTL_MS = 24 * 60 * 60_000;

/**
 * Sends a reply's pieces in order, remembering in the channel's store space how many went
 * out, so that a retry after a failure part-way (a 429 on piece 3 of 4) resumes instead of
 * sending pieces 1 and 2 again. A one-piece reply costs no store command.
 */
export async function sendPieces(
  kv: ChannelKv,
  messageId: string,
  pieces: readonly string[],
  sendOne: (piece: string, index: number) => Promise<void>,
): Promise<{ sent: number; resumedAt: number }> {
  const key = `progress:${messageId}`;
  const multi = pieces.length > 1;
  const stored = multi ? Number(await kv.get(key)) : 0;
  const resumedAt = Number.isInteger(stored) && stored > 0 && stored < pieces.length ? stored : 0;
  for (let i = resumedAt; i < pieces.length; i++) {
    await sendOne(pieces[i] as string, i);
    if (multi && i < pieces.length - 1) await kv.set(key, String(i + 1), PROGRESS_TTL_MS);
  }
  if (multi) await kv.delete(key);
  return { sent: pieces.length - resumedAt, resumedAt };
}
