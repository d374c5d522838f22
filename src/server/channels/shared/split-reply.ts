/**
 * Splits an agent's reply into messages a platform accepts (Slack: 4,000 characters
 * recommended; Discord: 2,000). Lengths are UTF-16 code units — JavaScript's `length`, never
 * fewer than a platform's own character count — so a piece is never too long. A piece ends
 * at the last line break in the second half of the window, else the last space there, else
 * at the limit (never inside a surrogate pair). The break character and line breaks right
 * after it are dropped; pieces that would be only whitespace are left out.
 */
export function splitReply(text: string, limit: number): string[] {
  if (!Number.isInteger(limit) || limit < 2)
    throw new RangeError(`limit: expected an integer of at least 2, got ${limit}`);
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    // One character past the limit: a break exactly there still yields a full piece.
    const window = rest.slice(0, limit + 1);
    const floor = Math.floor(limit / 2);
    let cut = lastBreak(window, /\n/g, floor);
    if (cut < 0) cut = lastBreak(window, /[ \t]/g, floor);
    let next = cut + 1;
    if (cut < 0) {
      cut = isHighSurrogate(rest.charCodeAt(limit - 1)) ? limit - 1 : limit;
      next = cut;
    }
    pushPiece(pieces, rest.slice(0, cut));
    // The message boundary is itself a break: blank lines after it would only show as a gap.
    rest = rest.slice(next).replace(/^\n+/, "");
  }
  pushPiece(pieces, rest);
  return pieces;
}

function lastBreak(window: string, pattern: RegExp, floor: number): number {
  let found = -1;
  for (const m of window.matchAll(pattern)) if (m.index >= floor) found = m.index;
  return found;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function pushPiece(pieces: string[], piece: string): void {
  if (piece.trim() !== "") pieces.push(piece);
}
