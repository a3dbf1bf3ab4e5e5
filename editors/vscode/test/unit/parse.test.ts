import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  parsePermissionRequest,
  parsePromptResult,
  parseSessionList,
  parseSessionUpdate,
  parseUpdate,
} from '../../src/core/parse';

test('text and thought chunks parse; a chunk without text is rejected', () => {
  assert.deepEqual(parseUpdate({ kind: 'agent_message_chunk', text: 'hi' }), { kind: 'agent_message_chunk', text: 'hi' });
  assert.deepEqual(parseUpdate({ kind: 'agent_thought_chunk', text: '' }), { kind: 'agent_thought_chunk', text: '' });
  assert.equal(parseUpdate({ kind: 'agent_message_chunk' }), undefined);
  assert.equal(parseUpdate({ kind: 'agent_message_chunk', text: 3 }), undefined);
});

test('a tool_call nested under toolCall keeps the tool kind apart from the update kind', () => {
  const update = parseUpdate({
    kind: 'tool_call',
    toolCall: {
      toolCallId: 'c1',
      name: 'edit',
      title: 'Edit a.py',
      kind: 'edit',
      status: 'in_progress',
      rawInput: { file_path: 'a.py' },
      content: [{ type: 'diff', path: '/w/a.py', oldText: 'x', newText: 'y' }, { type: 'bogus' }],
      locations: [{ path: '/w/a.py', line: 3 }, { line: 4 }],
    },
  });
  assert.deepEqual(update, {
    kind: 'tool_call',
    toolCallId: 'c1',
    name: 'edit',
    title: 'Edit a.py',
    toolKind: 'edit',
    status: 'in_progress',
    rawInput: { file_path: 'a.py' },
    content: [{ type: 'diff', path: '/w/a.py', oldText: 'x', newText: 'y' }],
    locations: [{ path: '/w/a.py', line: 3 }],
  });
});

test('a flat tool_call uses toolKind; unknown kinds and statuses are dropped, not guessed', () => {
  assert.deepEqual(parseUpdate({ kind: 'tool_call', toolCallId: 'c2', toolKind: 'read', status: 'done' }), {
    kind: 'tool_call',
    toolCallId: 'c2',
    toolKind: 'read',
  });
  assert.equal(parseUpdate({ kind: 'tool_call', toolCall: { title: 'no id' } }), undefined);
});

test('a write diff has a null oldText', () => {
  const update = parseUpdate({ kind: 'tool_call', toolCall: { toolCallId: 'w', content: [{ type: 'diff', path: 'n.txt', newText: 'new' }] } });
  assert.deepEqual(update?.kind === 'tool_call' && update.content, [{ type: 'diff', path: 'n.txt', oldText: null, newText: 'new' }]);
});

test('state, usage, plan and user message updates parse', () => {
  assert.deepEqual(parseUpdate({ kind: 'state_update', state: 'idle', stopReason: 'cancelled' }), {
    kind: 'state_update',
    state: 'idle',
    stopReason: 'cancelled',
  });
  assert.deepEqual(parseUpdate({ kind: 'state_update', state: 'idle', error: { code: 'AUTH', message: 'bad key' } }), {
    kind: 'state_update',
    state: 'idle',
    error: { code: 'AUTH', message: 'bad key' },
  });
  assert.equal(parseUpdate({ kind: 'state_update', state: 'sleeping' }), undefined);
  assert.deepEqual(parseUpdate({ kind: 'usage_update', inputTokens: 5, outputTokens: 7, reasoningTokens: 2 }), {
    kind: 'usage_update',
    inputTokens: 5,
    outputTokens: 7,
    reasoningTokens: 2,
  });
  assert.equal(parseUpdate({ kind: 'usage_update', inputTokens: 5 }), undefined);
  assert.deepEqual(parseUpdate({ kind: 'plan_update', entries: [{ content: 'a', status: 'pending' }, 7] }), {
    kind: 'plan_update',
    entries: [{ content: 'a', status: 'pending' }],
  });
  assert.deepEqual(
    parseUpdate({
      kind: 'user_message',
      content: [{ type: 'text', text: 'q' }, { type: 'resource_link', uri: 'file:///a', range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } } }],
    }),
    {
      kind: 'user_message',
      content: [
        { type: 'text', text: 'q' },
        { type: 'resource_link', uri: 'file:///a', range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } } },
      ],
    },
  );
});

test('session update envelopes need a session id and a known update kind', () => {
  assert.deepEqual(parseSessionUpdate({ sessionId: 's', update: { kind: 'agent_message_chunk', text: 'x' } }), {
    sessionId: 's',
    update: { kind: 'agent_message_chunk', text: 'x' },
  });
  assert.equal(parseSessionUpdate({ update: { kind: 'agent_message_chunk', text: 'x' } }), undefined);
  assert.equal(parseSessionUpdate({ sessionId: 's', update: { kind: 'future_kind' } }), undefined);
  assert.equal(parseSessionUpdate(null), undefined);
  assert.equal(parseSessionUpdate([]), undefined);
});

test('permission requests need a session, a tool call id and at least one valid option', () => {
  const raw = {
    sessionId: 's',
    toolCall: { toolCallId: 'c', title: 'Edit a', kind: 'edit', content: [{ type: 'diff', path: 'a', oldText: 'x', newText: 'y' }] },
    options: [
      { optionId: 'allow_once', name: 'Allow', kind: 'allow_once' },
      { optionId: 'nope', name: 'Nope', kind: 'maybe' },
    ],
  };
  assert.deepEqual(parsePermissionRequest(raw), {
    sessionId: 's',
    toolCall: { toolCallId: 'c', title: 'Edit a', toolKind: 'edit', content: [{ type: 'diff', path: 'a', oldText: 'x', newText: 'y' }] },
    options: [{ optionId: 'allow_once', name: 'Allow', kind: 'allow_once' }],
  });
  assert.equal(parsePermissionRequest({ ...raw, options: [] }), undefined);
  assert.equal(parsePermissionRequest({ ...raw, toolCall: { title: 'x' } }), undefined);
});

test('prompt results and session lists', () => {
  assert.deepEqual(parsePromptResult({ stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 2 } }), {
    stopReason: 'end_turn',
    usage: { inputTokens: 1, outputTokens: 2 },
  });
  assert.equal(parsePromptResult({ stopReason: 'finished' }), undefined);
  assert.deepEqual(parseSessionList({ sessions: [{ sessionId: 'a', cwd: '/w', title: 't', createdAt: 1764500000000, updatedAt: '2026-11-30T10:00:00Z' }, { cwd: 'x' }] }), [
    { sessionId: 'a', cwd: '/w', title: 't', createdAt: 1764500000000, updatedAt: '2026-11-30T10:00:00Z' },
  ]);
  assert.deepEqual(parseSessionList('nope'), []);
});
