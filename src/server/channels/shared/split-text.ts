/**
 * Splits a reply into parts of at most `limit` UTF-16 code units (what JavaScript's `length`
 * counts; platforms that count Unicode code points allow at least as much). A part ends at
 * the last line break that fits, else at the last whitespace, else at the limit; the break
 * itself is dropped, and a cut never separates the two halves of a surrogate pair.
 * Whitespace-only parts are skipped: platforms refuse empty messages.
 */
export function splitText(text: string, limit: number): string[] {
  if (!Number.isInteger(limit) || limit < 2) throw new RangeError("limit: expected an integer ≥ 2");
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const window = rest.slice(0, limit + 1);
    let cut = window.lastIndexOf("\n");
    let skip = 1;
    if (cut <= 0) {
      cut = lastWhitespace(window);
      skip = 1;
    }
    if (cut <= 0) {
      cut = limit;
      skip = 0;
      if (isHighSurrogate(rest.charCodeAt(cut - 1))) cut -= 1;
    }
    pushPart(parts, rest.slice(0, cut));
    rest = rest.slice(cut + skip);
  }
  pushPart(parts, rest);
  return parts;
}

function lastWhitespace(s: string): number {
  for (let i = s.length - 1; i > 0; i--) if (/\s/.test(s[i] as string)) return i;
  return -1;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function pushPart(parts: string[], part: string): void {
  const trimmed = part.replace(/\s+$/, "");
  if (trimmed.trim() !== "") parts.push(trimmed);
}
