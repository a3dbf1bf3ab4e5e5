import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionUpdate } from '../../src/core/protocol';
import { cardLayout, EDITOR_TOOLS } from '../../src/core/toolCards';
import { type ChatEvent, type ChatState, EMPTY_STATE, pendingPermissions, reduce, reduceAll } from '../../src/core/viewModel';

const up = (update: SessionUpdate): ChatEvent => ({ type: 'update', update });
const run = (events: ChatEvent[], from: ChatState = EMPTY_STATE): ChatState => reduceAll(from, events).state;

test('consecutive chunks of one kind join into one item; a kind change starts a new one', () => {
  const state = run([
    up({ kind: 'agent_thought_chunk', text: 'let me ' }),
    up({ kind: 'agent_thought_chunk', text: 'think' }),
    up({ kind: 'agent_message_chunk', text: 'Hel' }),
    up({ kind: 'agent_message_chunk', text: 'lo' }),
  ]);
  assert.deepEqual(
    state.items.map((item) => [item.type, 'text' in item ? item.text : '']),
    [
      ['thought', 'let me think'],
      ['agent', 'Hello'],
    ],
  );
});

test('reduce never mutates its input state', () => {
  const before = run([up({ kind: 'agent_message_chunk', text: 'a' })]);
  const snapshot = JSON.stringify(before);
  reduce(before, up({ kind: 'agent_message_chunk', text: 'b' }));
  reduce(before, { type: 'reset' });
  assert.equal(JSON.stringify(before), snapshot);
});

test('tool_call updates upsert by id: omitted fields stay, given ones replace', () => {
  const state = run([
    up({ kind: 'tool_call', toolCallId: 'c1', name: 'edit', title: 'edit', toolKind: 'other', status: 'pending' }),
    up({ kind: 'tool_call', toolCallId: 'c1', title: 'Edit a.py', toolKind: 'edit', status: 'in_progress', locations: [{ path: '/w/a.py' }] }),
    up({ kind: 'agent_message_chunk', text: 'between' }),
    up({ kind: 'tool_call', toolCallId: 'c1', status: 'completed', content: [{ type: 'text', text: 'ok' }] }),
  ]);
  assert.equal(state.items.length, 2);
  const tool = state.items[0];
  assert.ok(tool?.type === 'tool');
  assert.deepEqual(tool.call, {
    toolCallId: 'c1',
    name: 'edit',
    title: 'Edit a.py',
    toolKind: 'edit',
    status: 'completed',
    content: [{ type: 'text', text: 'ok' }],
    locations: [{ path: '/w/a.py' }],
  });
});

test('changed lists exactly the touched item', () => {
  const first = reduce(EMPTY_STATE, up({ kind: 'agent_message_chunk', text: 'x' }));
  assert.deepEqual(first.changed, [first.state.items[0]?.id]);
  const usage = reduce(first.state, up({ kind: 'usage_update', inputTokens: 1, outputTokens: 1 }));
  assert.deepEqual(usage.changed, []);
});

test('a local prompt is confirmed (not repeated) by the echoed user_message, keeping its attachments', () => {
  const sent = [
    { type: 'text' as const, text: 'hi' },
    { type: 'resource_link' as const, uri: 'file:///w/a.py' },
  ];
  const state = run([
    { type: 'userPrompt', content: sent },
    up({ kind: 'state_update', state: 'running' }),
    up({ kind: 'user_message', content: [{ type: 'text', text: 'hi' }] }),
  ]);
  assert.equal(state.items.length, 1);
  assert.deepEqual(state.items[0], { type: 'user', id: 'u1', content: sent, pending: false });
  assert.equal(state.running, true);
});

test('a turn closes once: the idle update and the prompt result share one footer', () => {
  const state = run([
    { type: 'userPrompt', content: [{ type: 'text', text: 'hi' }] },
    up({ kind: 'agent_message_chunk', text: 'hello' }),
    up({ kind: 'usage_update', inputTokens: 10, outputTokens: 3 }),
    up({ kind: 'state_update', state: 'idle', stopReason: 'end_turn' }),
    { type: 'turnEnded', stopReason: 'end_turn', usage: { inputTokens: 10, outputTokens: 3, cacheReadTokens: 8 } },
  ]);
  const footers = state.items.filter((item) => item.type === 'turn');
  assert.equal(footers.length, 1);
  assert.deepEqual(footers[0], {
    type: 'turn',
    id: 't3',
    stopReason: 'end_turn',
    usage: { inputTokens: 10, outputTokens: 3, cacheReadTokens: 8 },
  });
  assert.equal(state.running, false);
});

test('replayed history (no local prompt) builds turns from the updates alone', () => {
  const state = run([
    up({ kind: 'state_update', state: 'running' }),
    up({ kind: 'user_message', content: [{ type: 'text', text: 'one' }] }),
    up({ kind: 'agent_message_chunk', text: 'first' }),
    up({ kind: 'usage_update', inputTokens: 1, outputTokens: 2 }),
    up({ kind: 'state_update', state: 'idle', stopReason: 'end_turn' }),
    up({ kind: 'state_update', state: 'running' }),
    up({ kind: 'user_message', content: [{ type: 'text', text: 'two' }] }),
    up({ kind: 'agent_message_chunk', text: 'second' }),
    up({ kind: 'state_update', state: 'idle', stopReason: 'cancelled' }),
  ]);
  assert.deepEqual(
    state.items.map((item) => item.type),
    ['user', 'agent', 'turn', 'user', 'agent', 'turn'],
  );
  const last = state.items[5];
  assert.ok(last?.type === 'turn');
  assert.equal(last.stopReason, 'cancelled');
  const first = state.items[2];
  assert.ok(first?.type === 'turn');
  assert.deepEqual(first.usage, { inputTokens: 1, outputTokens: 2 });
});

test('a failed turn shows its error and code, merged with a failing idle update', () => {
  const state = run([
    { type: 'userPrompt', content: [{ type: 'text', text: 'hi' }] },
    up({ kind: 'state_update', state: 'idle', error: { code: 'AUTH', message: 'no key' } }),
    { type: 'turnFailed', message: 'The API key was rejected: set DEEPSEEK_API_KEY', code: 'AUTH' },
  ]);
  assert.deepEqual(
    state.items.map((item) => item.type),
    ['user', 'turn'],
  );
  const footer = state.items[1];
  assert.ok(footer?.type === 'turn');
  assert.deepEqual(footer.error, { message: 'The API key was rejected: set DEEPSEEK_API_KEY', code: 'AUTH' });
  const user = state.items[0];
  assert.ok(user?.type === 'user' && !user.pending);
});

test('permission cards: pending → selected; a second answer is ignored; requiresAction tracks pending cards', () => {
  const toolCall = { toolCallId: 'c', title: 'Edit a', toolKind: 'edit' as const };
  const options = [
    { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' as const },
    { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' as const },
  ];
  let state = run([
    { type: 'permissionRequested', requestId: 'r1', toolCall, options },
    { type: 'permissionRequested', requestId: 'r2', toolCall, options },
  ]);
  assert.deepEqual(pendingPermissions(state), ['r1', 'r2']);
  assert.equal(state.requiresAction, true);
  state = run([{ type: 'permissionResolved', requestId: 'r1', outcome: { outcome: 'selected', optionId: 'allow_once' } }], state);
  assert.equal(state.requiresAction, true);
  const again = reduce(state, { type: 'permissionResolved', requestId: 'r1', outcome: { outcome: 'cancelled' } });
  assert.deepEqual(again.changed, []);
  state = run([{ type: 'permissionResolved', requestId: 'r2', outcome: { outcome: 'withdrawn' } }], state);
  assert.equal(state.requiresAction, false);
  assert.deepEqual(
    state.items.map((item) => (item.type === 'permission' ? [item.status, item.optionId] : [])),
    [
      ['selected', 'allow_once'],
      ['withdrawn', undefined],
    ],
  );
});

test('plan updates replace the plan of the open turn, and a new turn gets a new plan', () => {
  const state = run([
    { type: 'userPrompt', content: [{ type: 'text', text: 'go' }] },
    up({ kind: 'plan_update', entries: [{ content: 'a', status: 'pending' }] }),
    up({ kind: 'plan_update', entries: [{ content: 'a', status: 'completed' }] }),
    { type: 'turnEnded', stopReason: 'end_turn' },
    { type: 'userPrompt', content: [{ type: 'text', text: 'again' }] },
    up({ kind: 'plan_update', entries: [{ content: 'b' }] }),
  ]);
  const plans = state.items.filter((item) => item.type === 'plan');
  assert.equal(plans.length, 2);
  assert.deepEqual(plans[0]?.type === 'plan' && plans[0].entries, [{ content: 'a', status: 'completed' }]);
});

test('requires_action then running keeps the turn running', () => {
  const state = run([
    { type: 'userPrompt', content: [{ type: 'text', text: 'go' }] },
    up({ kind: 'state_update', state: 'requires_action' }),
  ]);
  assert.equal(state.requiresAction, true);
  const resumed = run([up({ kind: 'state_update', state: 'running' })], state);
  assert.equal(resumed.requiresAction, false);
  assert.equal(resumed.running, true);
});

test('reset empties the model', () => {
  assert.equal(run([up({ kind: 'agent_message_chunk', text: 'x' }), { type: 'reset' }]), EMPTY_STATE);
});

test('a failed turn renders the server message with its hint (AUTH: the apiKeyEnv hint)', async () => {
  const { turnErrorHtml } = await import('../../src/core/markdown.js');
  // What dsh-lsp sends for a missing key on a public base URL (errors.user_message).
  const message =
    'the API key variable DEEPSEEK_API_KEY is not set. Set the API key variable (DEEPSEEK_API_KEY, or the one named by ' +
    'dsh.model.apiKeyEnv or --api-key-env) in the environment dsh-lsp starts from, then restart dsh-lsp.';
  for (const end of [
    [up({ kind: 'state_update', state: 'idle', stopReason: 'end_turn', error: { message, code: 'AUTH' } })],
    [{ type: 'turnFailed', message, code: 'AUTH' } satisfies ChatEvent],
  ]) {
    const state = run([{ type: 'userPrompt', content: [{ type: 'text', text: 'hello' }] }, ...end]);
    const turn = state.items.find((item) => item.type === 'turn');
    assert.ok(turn?.type === 'turn' && turn.error !== undefined);
    const html = turnErrorHtml(turn.error);
    assert.match(html, /^<strong>AUTH<\/strong>: the API key variable DEEPSEEK_API_KEY is not set\./);
    assert.ok(html.includes('the one named by dsh.model.apiKeyEnv or --api-key-env'), html);
    assert.ok(html.endsWith('then restart dsh-lsp.'), html);
  }
});

test('cards of the editor tools list every location, even one, and fold the text only where the locations already show it', () => {
  assert.deepEqual([...EDITOR_TOOLS].sort(), ['definition', 'diagnostics', 'hover', 'references', 'symbols']);
  const one = [{ path: '/w/a.py', line: 3 }];
  const two = [...one, { path: '/w/b.py', line: 9 }];
  assert.deepEqual(cardLayout({ name: 'definition', toolKind: 'search', locations: one }), { listLocations: true, foldText: true });
  assert.deepEqual(cardLayout({ name: 'references', toolKind: 'search', locations: two }), { listLocations: true, foldText: true });
  assert.deepEqual(cardLayout({ name: 'symbols', toolKind: 'search', locations: [] }), { listLocations: false, foldText: false }, 'no symbols: the text says so');
  assert.deepEqual(cardLayout({ name: 'hover', toolKind: 'read', locations: one }), { listLocations: true, foldText: false }, 'a hover text is the answer: shown');
  assert.deepEqual(cardLayout({ name: 'diagnostics', toolKind: 'read', locations: two }), { listLocations: true, foldText: false }, 'the messages are shown');
  assert.deepEqual(cardLayout({ name: 'edit', toolKind: 'edit', locations: one }), { listLocations: false, foldText: false }, 'one location: the title link');
  assert.deepEqual(cardLayout({ name: 'read', toolKind: 'read', locations: one }), { listLocations: false, foldText: true });
  assert.deepEqual(cardLayout({ name: 'grep', toolKind: 'search', locations: two }), { listLocations: true, foldText: false });
});
