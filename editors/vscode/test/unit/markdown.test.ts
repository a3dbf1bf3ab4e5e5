import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml, IncrementalMarkdown, renderInline, renderMarkdown } from '../../src/core/markdown';

test('all markup in the source is escaped', () => {
  const html = renderMarkdown('<script>alert(1)</script>\n\n<img src=x onerror=alert(1)> "q" \'s\'');
  assert.ok(!html.includes('<script'));
  assert.ok(!html.includes('<img'));
  assert.ok(html.includes('&lt;script&gt;'));
  assert.equal(escapeHtml(`<&>"'`), '&lt;&amp;&gt;&quot;&#39;');
});

test('links become data-href anchors; quotes cannot break out of the attribute', () => {
  const html = renderInline('see [docs](https://x.org/a?b=1&c="2") and ![logo](https://x.org/l.png)');
  assert.equal(
    html,
    'see <a href="#" data-href="https://x.org/a?b=1&amp;c=&quot;2&quot;" title="https://x.org/a?b=1&amp;c=&quot;2&quot;">docs</a> and <span class="img-alt">[image: logo]</span>',
  );
  // The host opens only http(s) and file links; the anchor itself never navigates.
  assert.ok(!/\shref="(?!#")/.test(renderInline('[x](javascript:alert(1))')));
});

test('inline code keeps its content literal; emphasis and strike render', () => {
  assert.equal(renderInline('use `a **b** <c>` then **bold** *it* ~~gone~~'), 'use <code>a **b** &lt;c&gt;</code> then <strong>bold</strong> <em>it</em> <del>gone</del>');
  assert.equal(renderInline('snake_case_name stays'), 'snake_case_name stays');
  assert.equal(renderInline('2 * 3 * 4'), '2 * 3 * 4');
});

test('fenced code blocks, headings, lists, quotes and rules', () => {
  const html = renderMarkdown('# Title\n\nText line\nsecond\n\n```python\nx = 1 < 2\n```\n- a\n- b\n\n1. one\n2. two\n\n> quoted\n\n---');
  assert.equal(
    html,
    '<h1>Title</h1><p>Text line\nsecond</p>' +
      '<div class="code-block"><div class="code-head"><span class="code-lang">python</span><button class="code-copy" data-action="copy">Copy</button></div><pre><code>x = 1 &lt; 2</code></pre></div>' +
      '<ul><li>a</li><li>b</li></ul><ol><li>one</li><li>two</li></ol><blockquote><p>quoted</p></blockquote><hr>',
  );
});

test('an unclosed fence renders as code to the end', () => {
  assert.ok(renderMarkdown('```\nopen\nstill').includes('<pre><code>open\nstill</code></pre>'));
});

function streamed(text: string, pieceSize: number): string {
  const md = new IncrementalMarkdown();
  let stable = '';
  let tail = '';
  for (let end = pieceSize; end < text.length + pieceSize; end += pieceSize) {
    const out = md.update(text.slice(0, Math.min(end, text.length)));
    stable += out.append;
    tail = out.tail;
  }
  return stable + tail;
}

test('incremental rendering equals the whole render, for any split', () => {
  const text = '# Plan\n\nFirst para with `code`.\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\nAfter the fence\n- item\n- item two\n\nlast *words*';
  for (const size of [1, 2, 3, 7, 50, text.length]) {
    assert.equal(streamed(text, size), renderMarkdown(text), `piece size ${size}`);
  }
});

test('incremental rendering refuses shrinking text', () => {
  const md = new IncrementalMarkdown();
  md.update('abc');
  assert.throws(() => md.update('ab'));
});

test('finished blocks are rendered once: the work stays linear in the answer length', () => {
  const paragraph = 'Some words in a paragraph that keeps going for a while.\n\n';
  const text = paragraph.repeat(500);
  const md = new IncrementalMarkdown();
  let rendered = 0;
  let updates = 0;
  for (let end = 10; end <= text.length; end += 10) {
    const out = md.update(text.slice(0, end));
    rendered += out.append.length + out.tail.length;
    updates++;
  }
  // Each paragraph appears once in `append`, plus at most one paragraph of tail per update.
  assert.ok(rendered <= renderMarkdown(text).length + updates * 70, `rendered ${rendered} characters in ${updates} updates`);
});
