/**
 * Prompt attachments: files and selections sent as `resource_link` blocks (pure).
 */

import type { ContentBlock, Range } from './protocol';

export interface Attachment {
  uri: string;
  /** What the chip shows: a workspace-relative path, plus lines for a selection. */
  label: string;
  range?: Range;
}

/** `src/app.py` for a file, `src/app.py:3-7` for a selection (lines shown 1-based). */
export function attachmentLabel(relativePath: string, range?: Range): string {
  if (range === undefined) return relativePath;
  const first = range.start.line + 1;
  // A selection ending at column 0 does not include that line.
  const last = range.end.character === 0 && range.end.line > range.start.line ? range.end.line : range.end.line + 1;
  return first === last ? `${relativePath}:${first}` : `${relativePath}:${first}-${last}`;
}

/** The prompt's content blocks: the text, then one `resource_link` per attachment (deduplicated). */
export function promptBlocks(text: string, attachments: readonly Attachment[]): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (text.trim() !== '') blocks.push({ type: 'text', text });
  const seen = new Set<string>();
  for (const attachment of attachments) {
    const key = JSON.stringify([attachment.uri, attachment.range]);
    if (seen.has(key)) continue;
    seen.add(key);
    blocks.push(
      attachment.range === undefined
        ? { type: 'resource_link', uri: attachment.uri }
        : { type: 'resource_link', uri: attachment.uri, range: attachment.range },
    );
  }
  return blocks;
}

/** `@path` mentions in `text` (a mention starts the text or follows whitespace). */
export function extractMentions(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/(^|\s)@([\w./\\-]*[\w/\\-])/g)) {
    const path = match[2];
    if (path !== undefined) found.add(path);
  }
  return [...found];
}
