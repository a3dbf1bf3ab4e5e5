import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coalesce } from '../../src/core/batching';
import { IncrementalMarkdown, renderMarkdown } from '../../src/core/markdown';
import { type ChatEvent, EMPTY_STATE, reduce, reduceAll } from '../../src/core/viewModel';

/** A 5,000-chunk answer mixing prose, lists and a long code block, cut into small pieces. */
function answerChunks(): string[] {
  const parts: string[] = [];
  for (let i = 0; i < 60; i++) parts.push(`Paragraph ${i} explains **step ${i}** with \`code_${i}\` and more words.\n\n`);
  parts.push('```python\n');
  for (let i = 0; i < 120; i++) parts.push(`def f${i}(x):\n    return x * ${i}\n`);
  parts.push('```\n\n- done\n- really\n');
  const text = parts.join('');
  const chunks: string[] = [];
  for (let i = 0; i < 5000; i++) chunks.push(text.slice(Math.floor((i * text.length) / 5000), Math.floor(((i + 1) * text.length) / 5000)));
  return chunks;
}

test('5,000 chunks: host fold + per-frame batches + incremental render stay fast and exact', () => {
  const chunks = answerChunks();
  assert.equal(chunks.length, 5000);
  const started = performance.now();

  // Host: every notification goes through the reducer.
  let host = EMPTY_STATE;
  for (const text of chunks) host = reduce(host, { type: 'update', update: { kind: 'agent_message_chunk', text } }).state;

  // Webview: batches of 25 chunks (one frame at ~1,500 chunks/s), coalesced, reduced, rendered.
  let view = EMPTY_STATE;
  const md = new IncrementalMarkdown();
  let stable = '';
  let tail = '';
  let renderedChars = 0;
  for (let at = 0; at < chunks.length; at += 25) {
    const batch: ChatEvent[] = chunks.slice(at, at + 25).map((text) => ({ type: 'update', update: { kind: 'agent_message_chunk', text } }));
    const merged = coalesce(batch);
    assert.equal(merged.length, 1);
    const result = reduceAll(view, merged);
    view = result.state;
    const item = view.items[0];
    assert.ok(item?.type === 'agent');
    const out = md.update(item.text);
    stable += out.append;
    tail = out.tail;
    renderedChars += out.append.length + out.tail.length;
  }
  const elapsed = performance.now() - started;

  const full = chunks.join('');
  assert.deepEqual(view, host);
  const agent = host.items[0];
  assert.ok(agent?.type === 'agent' && agent.text === full);
  const whole = renderMarkdown(full);
  assert.equal(stable + tail, whole);
  // The long code block is the only block re-rendered per frame; everything else once.
  assert.ok(renderedChars < whole.length * 40, `rendered ${renderedChars} chars for a ${whole.length}-char answer`);
  assert.ok(elapsed < 2000, `took ${elapsed.toFixed(0)} ms`);
});
