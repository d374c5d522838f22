import { type ChannelKv, ChannelSendError } from "../types";

/** How long a reply's progress is remembered for a later retry of the same reply. */
const PROGRESS_TTL_MS = 24 * 60 * 60_000;

export interface SendInPartsOptions {
  parts: string[];
  /** Sends one part; throws ChannelSendError (with retryAfterMs on a 429). */
  send(part: string, index: number): Promise<void>;
  kv: ChannelKv;
  /** Where this reply's progress is kept (one key per stored message). */
  progressKey: string;
  /**
   * A "slow down" up to this long (in total, per call) is waited out here, so replies keep
   * their order; a longer one is thrown for the inbox to retry later.
   */
  maxInlineWaitMs: number;
  signal: AbortSignal;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * Sends a reply split into parts, in order. When a part fails after earlier parts went out,
 * the number sent is kept in the channel's store space, so a retry of the same reply resumes
 * there instead of repeating what the person already received. Returns the parts sent now.
 */
export async function sendInParts(o: SendInPartsOptions): Promise<number> {
  const sleep = o.sleep ?? abortableSleep;
  // A one-part reply has nothing to resume: no store round trip.
  const start = o.parts.length > 1 ? Number((await o.kv.get(o.progressKey)) ?? 0) || 0 : 0;
  let waited = 0;
  for (let i = start; i < o.parts.length; i++) {
    for (;;) {
      try {
        await o.send(o.parts[i] as string, i);
        break;
      } catch (err) {
        const wait = err instanceof ChannelSendError ? err.retryAfterMs : null;
        if (wait !== null && waited + wait <= o.maxInlineWaitMs && !o.signal.aborted) {
          waited += wait;
          await sleep(wait, o.signal);
          continue;
        }
        if (i > 0) await o.kv.set(o.progressKey, String(i), PROGRESS_TTL_MS);
        throw err;
      }
    }
  }
  if (start > 0) await o.kv.delete(o.progressKey);
  return o.parts.length - start;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
