/**
 * The proposed text of a file for a "Show diff" (pure).
 *
 * A tool call's diff items carry either the whole new file (`oldText` null: a write) or a
 * replacement (`oldText` → `newText`, as the `edit`/`multi_edit` tools send them). Replacements
 * are applied in order to the current text — the editor buffer when the file is open — so the
 * diff editor shows exactly what the edit would do. When a replacement cannot be placed (not
 * found, or ambiguous without `replace_all`), the result is a fragment comparison instead.
 */

export interface DiffItem {
  oldText?: string | null;
  newText: string;
}

export type Proposal =
  | { kind: 'whole'; original: string; proposed: string }
  | { kind: 'fragment'; oldText: string; newText: string; reason: string };

function count(haystack: string, needle: string): number {
  let n = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) n++;
  return n;
}

function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}


/**
 * Apply `items` to `current` (`undefined`: the file does not exist yet).
 * `replaceAll` mirrors the tool's `replace_all` argument.
 */
export function proposeEdit(current: string | undefined, items: readonly DiffItem[], replaceAll = false): Proposal {
  const original = current ?? '';
  let text = original;
  const fragmentOf = (reason: string): Proposal => ({
    kind: 'fragment',
    oldText: items.map((item) => item.oldText ?? '').join('\n…\n'),
    newText: items.map((item) => item.newText).join('\n…\n'),
    reason,
  });
  for (const item of items) {
    if (item.oldText === null || item.oldText === undefined) {
      text = item.newText;
      continue;
    }
    let oldText = item.oldText;
    let newText = item.newText;
    if (oldText === '') return fragmentOf('the edit has no text to replace');
    if (!text.includes(oldText) && text.includes('\r\n') && !oldText.includes('\r\n')) {
      oldText = toCrlf(oldText);
      newText = toCrlf(newText);
    }
    const found = count(text, oldText);
    if (found === 0) return fragmentOf('the text to replace is not in the current file');
    if (found > 1 && !replaceAll) return fragmentOf('the text to replace occurs more than once');
    text = replaceAll ? text.split(oldText).join(newText) : text.replace(oldText, () => newText);
  }
  return { kind: 'whole', original, proposed: text };
}
