import { open } from "node:fs/promises";

/** The last `bytes` of a file, or less when it is shorter; empty when it does not exist. */
async function tailBytes(path: string, bytes: number): Promise<Buffer> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return Buffer.alloc(0);
    throw err;
  }
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, bytes);
    const buf = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buf, 0, length, size - length);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The end of the rotating log (log-file.ts keeps `<path>` and one `<path>.1`): up to `bytes`,
 * reaching into the rotated file when the current one is shorter, cut at a line start so no
 * half line leads. What the door's `GET /logs?tail=<bytes>` answers.
 */
export async function readLogTail(path: string, bytes: number): Promise<Buffer> {
  const current = await tailBytes(path, bytes);
  const older =
    current.length < bytes ? await tailBytes(`${path}.1`, bytes - current.length) : Buffer.alloc(0);
  const joined = Buffer.concat([older, current]);
  if (joined.length < bytes) return joined; // the whole log: starts at a line start already
  const newline = joined.indexOf(0x0a);
  return newline >= 0 ? joined.subarray(newline + 1) : joined;
}
