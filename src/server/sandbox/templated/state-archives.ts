import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { SnapshotNotFoundError } from "../../providers/types";
import type { KvStore } from "../../store/types";
import { fromChunks, STATE_ARCHIVE_PREFIX, toChunks } from "../plan/state-archive-plan";

/**
 * The agent's state archives in ClawRun's store (templated providers; docs/agents/openclaw.md,
 * "Layer", Vercel): each archive's chunks under its own keys, and one index of the archives
 * that are whole. Chunks are written before the index names them and the index forgets an
 * archive before its chunks go, so a server that dies at any line leaves at worst unreferenced
 * chunks, never an index entry without its data. Writers hold the lifecycle lock (one index
 * read-modify-write at a time).
 */

const INDEX_KEY = "state-archives";
const chunkKey = (id: string, i: number) => `state-archive/${id}/${i}`;

const metaSchema = z.object({
  id: z.string(),
  createdAt: z.number(),
  sizeBytes: z.number().int().nonnegative(),
  chunks: z.number().int().positive(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  sourceSandboxId: z.string(),
});
export type StateArchiveMeta = z.infer<typeof metaSchema>;
const indexSchema = z.array(metaSchema);

export class StateArchives {
  constructor(private readonly kv: KvStore) {}

  /** Newest first. A damaged index is an error: silently empty would read as "no saved state". */
  async list(): Promise<StateArchiveMeta[]> {
    const raw = await this.kv.get(INDEX_KEY);
    if (raw === null) return [];
    const parsed = indexSchema.safeParse(JSON.parse(raw));
    if (!parsed.success)
      throw new Error(`the store's state-archive index is damaged: ${raw.slice(0, 200)}`);
    return [...parsed.data].sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id));
  }

  async put(bytes: Buffer, o: { sourceSandboxId: string; now: number }): Promise<StateArchiveMeta> {
    const id = `${STATE_ARCHIVE_PREFIX}${o.now.toString(36)}_${randomBytes(6).toString("hex")}`;
    const chunks = toChunks(bytes);
    for (const [i, chunk] of chunks.entries()) await this.kv.set(chunkKey(id, i), chunk, null);
    const meta: StateArchiveMeta = {
      id,
      createdAt: o.now,
      sizeBytes: bytes.length,
      chunks: chunks.length,
      sha256: sha256(bytes),
      sourceSandboxId: o.sourceSandboxId,
    };
    await this.kv.set(INDEX_KEY, JSON.stringify([meta, ...(await this.list())]), null);
    return meta;
  }

  /** The archive's bytes, checked against its hash; SnapshotNotFoundError when it is not indexed. */
  async read(id: string): Promise<Buffer> {
    const meta = (await this.list()).find((m) => m.id === id);
    if (!meta) throw new SnapshotNotFoundError(id);
    const chunks: (string | null)[] = [];
    for (let i = 0; i < meta.chunks; i++) chunks.push(await this.kv.get(chunkKey(id, i)));
    const bytes = fromChunks(chunks, meta.chunks);
    if (sha256(bytes) !== meta.sha256)
      throw new Error(`state archive ${id} does not match its hash: its stored chunks are damaged`);
    return bytes;
  }

  async delete(id: string): Promise<void> {
    const all = await this.list();
    const meta = all.find((m) => m.id === id);
    if (!meta) throw new SnapshotNotFoundError(id);
    await this.kv.set(INDEX_KEY, JSON.stringify(all.filter((m) => m.id !== id)), null);
    for (let i = 0; i < meta.chunks; i++) await this.kv.delete(chunkKey(id, i));
  }
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
