import type { ClawrunServer } from "../../../tests/support/clawrun-server";

/** One chat platform as the channels bench drives it: a fake platform plus a server for it. */
export interface BenchPlatform {
  name: string;
  server: ClawrunServer;
  /** Delivers message `i` of conversation `chat` as the platform would; its status and ack time. */
  deliver(chat: number, i: number): Promise<{ status: number; ms: number }>;
  /** When the platform saw the waiting indicator / the reply for that message (epoch ms), if yet. */
  indicatorAt(chat: number, i: number): number | undefined;
  replyAt(chat: number, i: number): number | undefined;
  stop(): Promise<void>;
}

/** Every bench server keeps the agent awake between rounds; the runner puts it to sleep. */
export const BENCH_SANDBOX = { activeDuration: 600 } as const;

export async function timed<T extends { status: number }>(
  call: () => Promise<T>,
): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  const { status } = await call();
  return { status, ms: performance.now() - t0 };
}
