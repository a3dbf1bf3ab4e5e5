/**
 * Columns in the three LSP position encodings (pure).
 *
 * VS Code counts columns in UTF-16 code units; the connection to dsh-lsp may have negotiated
 * UTF-8 (bytes) or UTF-32 (code points). These convert one column of one line between the
 * editor's UTF-16 and another encoding, given the line's text. A column past the end of the
 * line is clamped to the line's length; a column inside a character (half a surrogate pair,
 * the middle of a UTF-8 sequence) is moved to that character's start.
 */

import type { PositionEncoding, Position, Range } from './protocol';

/** How many units of `encoding` the code point `codePoint` takes. */
function unitsOf(codePoint: number, encoding: PositionEncoding): number {
  if (encoding === 'utf-32') return 1;
  if (encoding === 'utf-16') return codePoint > 0xffff ? 2 : 1;
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

/** Convert `column` (in `from` units) on `lineText` to `to` units. */
export function convertColumn(lineText: string, column: number, from: PositionEncoding, to: PositionEncoding): number {
  if (from === to || column <= 0) return Math.max(0, from === to ? column : 0);
  let seen = 0;
  let out = 0;
  for (const char of lineText) {
    const codePoint = char.codePointAt(0) ?? 0;
    const width = unitsOf(codePoint, from);
    if (seen + width > column) return out;
    seen += width;
    out += unitsOf(codePoint, to);
    if (seen === column) return out;
  }
  return out;
}

/** The line texts a conversion needs: `undefined` for a line that cannot be read (columns kept). */
export type LineTexts = (line: number) => string | undefined;

export function convertPosition(position: Position, lines: LineTexts, from: PositionEncoding, to: PositionEncoding): Position {
  if (from === to) return position;
  const text = lines(position.line);
  return text === undefined ? position : { line: position.line, character: convertColumn(text, position.character, from, to) };
}

export function convertRange(range: Range, lines: LineTexts, from: PositionEncoding, to: PositionEncoding): Range {
  if (from === to) return range;
  return { start: convertPosition(range.start, lines, from, to), end: convertPosition(range.end, lines, from, to) };
}
