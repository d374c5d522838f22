/**
 * Reads the tar archives the SDK uploads (tar-stream's ustar output, gzipped): regular files,
 * directories, and the PAX / GNU long-name records it may emit for long paths. Anything else
 * is reported as "other" so the caller can refuse it.
 */

export interface TarEntry {
  name: string;
  type: "file" | "directory" | "other";
  mode: number;
  content: Buffer;
}

const BLOCK = 512;

function text(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? raw.length : end).toString("utf8");
}

function octal(header: Buffer, start: number, length: number): number {
  const value = text(header, start, length).trim();
  return value === "" ? 0 : Number.parseInt(value, 8);
}

function checksumOk(header: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] as number);
  return sum === octal(header, 148, 8);
}

/** PAX records: "<length> <key>=<value>\n", repeated. */
function paxPath(content: Buffer): string | null {
  let rest = content.toString("utf8");
  while (rest.length > 0) {
    const space = rest.indexOf(" ");
    const length = Number(rest.slice(0, space));
    if (!Number.isInteger(length) || length <= 0) return null;
    const record = rest.slice(space + 1, length - 1);
    const eq = record.indexOf("=");
    if (record.slice(0, eq) === "path") return record.slice(eq + 1);
    rest = rest.slice(length);
  }
  return null;
}

export function readTar(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let longName: string | null = null;
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
    if (!checksumOk(header)) throw new Error(`tar: bad header checksum at offset ${offset}`);
    const size = octal(header, 124, 12);
    const content = archive.subarray(offset + BLOCK, offset + BLOCK + size);
    if (content.length !== size) throw new Error("tar: archive ends inside an entry");
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    const flag = String.fromCharCode(header[156] as number);
    if (flag === "x") {
      longName = paxPath(content);
      continue;
    }
    if (flag === "L") {
      longName = text(content, 0, content.length);
      continue;
    }
    if (flag === "g") continue;
    const prefix = text(header, 345, 155);
    const short = text(header, 0, 100);
    const name = longName ?? (prefix ? `${prefix}/${short}` : short);
    longName = null;
    const type = flag === "0" || flag === "\0" ? "file" : flag === "5" ? "directory" : "other";
    entries.push({ name, type, mode: octal(header, 100, 8), content: Buffer.from(content) });
  }
  return entries;
}
