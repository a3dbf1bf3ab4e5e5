/**
 * Line diffs for the chat's mini diffs (pure; shared by the webview).
 *
 * `lineDiff` shows only the lines that change, each hunk with up to `context` unchanged lines
 * around it, so a one-line edit of a file reads as one line removed and one added (not the
 * whole file replaced). Lines are matched by a longest common subsequence; past `MAX_CELLS`
 * line pairs the common head and tail are trimmed and the middle shown as replaced.
 */

export type DiffLine = readonly ['ctx' | 'del' | 'add' | 'gap', string];

const MAX_CELLS = 4_000_000;

function split(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The edit script from `a` to `b`: one entry per line, in order. */
function script(a: readonly string[], b: readonly string[]): ('ctx' | 'del' | 'add')[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const middle: ('ctx' | 'del' | 'add')[] = [];
  if ((x.length + 1) * (y.length + 1) > MAX_CELLS) {
    middle.push(...x.map(() => 'del' as const), ...y.map(() => 'add' as const));
  } else {
    const width = y.length + 1;
    const table = new Uint32Array((x.length + 1) * width);
    const at = (i: number, j: number): number => table[i * width + j] ?? 0;
    for (let i = x.length - 1; i >= 0; i--) {
      for (let j = y.length - 1; j >= 0; j--) {
        table[i * width + j] = x[i] === y[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
      }
    }
    let i = 0;
    let j = 0;
    while (i < x.length || j < y.length) {
      if (i < x.length && j < y.length && x[i] === y[j]) {
        middle.push('ctx');
        i++;
        j++;
      } else if (i < x.length && (j === y.length || at(i + 1, j) >= at(i, j + 1))) {
        middle.push('del');
        i++;
      } else {
        middle.push('add');
        j++;
      }
    }
  }
  return [...Array<'ctx'>(head).fill('ctx'), ...middle, ...Array<'ctx'>(tail).fill('ctx')];
}

/** The changed lines of `oldText` → `newText` (null: a new file) with `context` lines around. */
export function lineDiff(oldText: string | null | undefined, newText: string, context = 3): DiffLine[] {
  const a = split(oldText ?? '');
  const b = split(newText);
  const steps = script(a, b);
  const lines: { kind: 'ctx' | 'del' | 'add'; text: string }[] = [];
  let i = 0;
  let j = 0;
  for (const kind of steps) {
    if (kind === 'del') {
      lines.push({ kind, text: a[i] ?? '' });
      i++;
      continue;
    }
    lines.push({ kind, text: b[j] ?? '' });
    j++;
    if (kind === 'ctx') i++;
  }
  const keep = lines.map(() => false);
  lines.forEach((line, index) => {
    if (line.kind === 'ctx') return;
    for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++) keep[k] = true;
  });
  const out: DiffLine[] = [];
  let skipped = false;
  lines.forEach((line, index) => {
    if (!keep[index]) {
      skipped = true;
      return;
    }
    if (skipped && out.length > 0) out.push(['gap', '…']);
    skipped = false;
    out.push([line.kind, `${line.kind === 'del' ? '-' : line.kind === 'add' ? '+' : ' '} ${line.text}`]);
  });
  return out;
}

/** The class of an approval option's button: only a one-time allow is the primary one. */
export function optionStyle(kind: string): 'primary' | 'secondary' {
  return kind === 'allow_once' ? 'primary' : 'secondary';
}

/** `text` with the paths below `cwd` written relative to it. */
export function relativeText(text: string, cwd: string | undefined): string {
  if (cwd === undefined || cwd === '') return text;
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return text.split(base).join('');
}
