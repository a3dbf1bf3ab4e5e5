/**
 * A small, safe Markdown → HTML renderer for the chat view, whole and incremental (pure).
 *
 * Every character of input is HTML-escaped before any markup is added, so model output can
 * never inject tags, attributes or scripts; links become `data-href` anchors that the host
 * opens after checking the scheme, and images render as their alt text (no remote content).
 * `IncrementalMarkdown` renders each finished block once and re-renders only the unfinished
 * tail, which keeps a long streamed answer linear in its length.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;

function renderSpans(escaped: string): string {
  return escaped
    .replace(/!\[([^\]]*)\]\(([^)\s]+)\)/g, (_m, alt: string) => `<span class="img-alt">[image${alt ? `: ${alt}` : ''}]</span>`)
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, label: string, href: string) => `<a href="#" data-href="${href}" title="${href}">${label}</a>`)
    .replace(/\*\*(?=\S)(.+?)\*\*/g, '<strong>$1</strong>')
    .replace(/__(?=\S)(.+?)__/g, '<strong>$1</strong>')
    .replace(/(^|[^*\w])\*(?=\S)([^*]+?)\*(?![*\w])/g, '$1<em>$2</em>')
    .replace(/(^|[^_\w])_(?=\S)([^_]+?)_(?![_\w])/g, '$1<em>$2</em>')
    .replace(/~~(?=\S)(.+?)~~/g, '<del>$1</del>');
}

/**
 * The HTML of a failed turn's error in the chat: its code in bold, then the server's message
 * as it came, the hint that says what fixes it included (inline Markdown, escaped).
 */
export function turnErrorHtml(error: { message: string; code?: string }): string {
  return renderInline(error.code ? `**${error.code}**: ${error.message}` : error.message);
}

/** Inline Markdown: code spans, emphasis, links; everything else escaped. */
export function renderInline(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const open = /`+/.exec(rest);
    if (open === null) break;
    const ticks = open[0];
    const closeAt = rest.indexOf(ticks, open.index + ticks.length);
    if (closeAt < 0) break;
    out += renderSpans(escapeHtml(rest.slice(0, open.index)));
    const code = rest.slice(open.index + ticks.length, closeAt).replace(/^ (.*) $/s, '$1');
    out += `<code>${escapeHtml(code)}</code>`;
    rest = rest.slice(closeAt + ticks.length);
  }
  return out + renderSpans(escapeHtml(rest));
}

function codeBlock(lang: string, lines: string[]): string {
  const label = lang ? escapeHtml(lang) : 'text';
  return (
    `<div class="code-block"><div class="code-head"><span class="code-lang">${label}</span>` +
    `<button class="code-copy" data-action="copy">Copy</button></div>` +
    `<pre><code>${escapeHtml(lines.join('\n'))}</code></pre></div>`
  );
}

const BULLET = /^\s*[-*+]\s+(.*)$/;
const ORDERED = /^\s*\d{1,9}[.)]\s+(.*)$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;

/** Render whole Markdown text to HTML. */
export function renderMarkdown(text: string): string {
  const lines = text.split('\n');
  const html: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] ?? '```';
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? '').trim().startsWith(marker)) body.push(lines[i++] ?? '');
      i++; // the closing fence (or past the end)
      html.push(codeBlock(fence[2] ?? '', body));
      continue;
    }
    if (line.trim() === '') {
      i++;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = (heading[1] ?? '#').length;
      html.push(`<h${level}>${renderInline(heading[2] ?? '')}</h${level}>`);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      html.push('<hr>');
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const inner: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i] ?? '')) inner.push(QUOTE.exec(lines[i++] ?? '')?.[1] ?? '');
      html.push(`<blockquote>${renderMarkdown(inner.join('\n'))}</blockquote>`);
      continue;
    }
    const listPattern = BULLET.test(line) ? BULLET : ORDERED.test(line) ? ORDERED : undefined;
    if (listPattern) {
      const tag = listPattern === BULLET ? 'ul' : 'ol';
      const items: string[] = [];
      while (i < lines.length) {
        const current = lines[i] ?? '';
        const item = listPattern.exec(current);
        if (item) items.push(item[1] ?? '');
        else if (current.trim() !== '' && /^\s+/.test(current) && items.length > 0) items[items.length - 1] += `\n${current.trim()}`;
        else break;
        i++;
      }
      html.push(`<${tag}>${items.map((item) => `<li>${renderInline(item)}</li>`).join('')}</${tag}>`);
      continue;
    }
    const para: string[] = [];
    while (i < lines.length) {
      const current = lines[i] ?? '';
      if (current.trim() === '' || FENCE.test(current) || HEADING.test(current) || QUOTE.test(current)) break;
      if (para.length > 0 && (BULLET.test(current) || ORDERED.test(current) || RULE.test(current))) break;
      para.push(current);
      i++;
    }
    html.push(`<p>${renderInline(para.join('\n'))}</p>`);
  }
  return html.join('');
}

export interface IncrementalRender {
  /** HTML of blocks that finished since the last call; append it once. */
  append: string;
  /** HTML of the unfinished last block; replace the previous tail with it. */
  tail: string;
}

/**
 * Renders a growing Markdown text block by block. A block is finished at a blank line outside
 * a code fence, before a fence opens, or at the line that closes a fence; finished blocks
 * are never rendered again.
 */
export class IncrementalMarkdown {
  private stableEnd = 0;
  private scanned = 0;
  private fence: string | undefined;
  private length = 0;

  /** Render `text`, which must extend the text of the previous call. */
  update(text: string): IncrementalRender {
    if (text.length < this.length) throw new Error('IncrementalMarkdown: text must only grow');
    this.length = text.length;
    let boundary = this.stableEnd;
    let lineStart = this.scanned;
    for (;;) {
      const newline = text.indexOf('\n', lineStart);
      if (newline < 0) break;
      const line = text.slice(lineStart, newline);
      const lineEnd = newline + 1;
      if (this.fence !== undefined) {
        if (line.trim().startsWith(this.fence)) {
          this.fence = undefined;
          boundary = lineEnd;
        }
      } else {
        const fence = FENCE.exec(line);
        if (fence) {
          this.fence = fence[1];
          boundary = lineStart;
        } else if (line.trim() === '') {
          boundary = lineEnd;
        }
      }
      lineStart = lineEnd;
    }
    this.scanned = lineStart;
    const append = boundary > this.stableEnd ? renderMarkdown(text.slice(this.stableEnd, boundary)) : '';
    this.stableEnd = boundary;
    return { append, tail: renderMarkdown(text.slice(this.stableEnd)) };
  }
}
