import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Approvals } from '../../src/approvals';
import { compactionText, instructionsText, selectedOutcome } from '../../src/core/notices';
import { parsePermissionRequest, parseUpdate } from '../../src/core/parse';
import type { PermissionResponse } from '../../src/core/protocol';
import { type ChatEvent, EMPTY_STATE, reduceAll } from '../../src/core/viewModel';
import { parseViewMessage } from '../../src/core/webviewProtocol';

const up = (raw: unknown): ChatEvent => {
  const update = parseUpdate(raw);
  assert.ok(update !== undefined, JSON.stringify(raw));
  return { type: 'update', update };
};

test('compaction_update and instructions_update parse; malformed ones are dropped', () => {
  assert.deepEqual(parseUpdate({ kind: 'compaction_update', state: 'started', reason: 'threshold', tokensBefore: 91000 }), {
    kind: 'compaction_update',
    state: 'started',
    reason: 'threshold',
    tokensBefore: 91000,
  });
  assert.deepEqual(parseUpdate({ kind: 'compaction_update', state: 'failed', message: 'the summary was cut off' }), {
    kind: 'compaction_update',
    state: 'failed',
    message: 'the summary was cut off',
  });
  assert.equal(parseUpdate({ kind: 'compaction_update', state: 'halfway' }), undefined);
  assert.deepEqual(parseUpdate({ kind: 'instructions_update', sources: ['AGENTS.md', 3, 'pkg/CLAUDE.md'] }), {
    kind: 'instructions_update',
    sources: ['AGENTS.md', 'pkg/CLAUDE.md'],
  });
  assert.equal(parseUpdate({ kind: 'instructions_update', sources: [] }), undefined);
  assert.equal(parseUpdate({ kind: 'instructions_update' }), undefined);
});

test('a compaction is one row: started, then settled by completed (tokens before → after)', () => {
  const { state, changed } = reduceAll(EMPTY_STATE, [
    { type: 'userPrompt', content: [{ type: 'text', text: 'go on' }] },
    up({ kind: 'instructions_update', sources: ['AGENTS.md'] }),
    up({ kind: 'compaction_update', state: 'started', reason: 'threshold', tokensBefore: 91000 }),
    up({ kind: 'compaction_update', state: 'completed', tokensBefore: 91000, tokensAfter: 12000 }),
    up({ kind: 'agent_message_chunk', text: 'ok' }),
  ]);
  assert.deepEqual(
    state.items.map((item) => item.type),
    ['user', 'instructions', 'compaction', 'agent'],
  );
  const row = state.items[2];
  assert.ok(row?.type === 'compaction');
  assert.equal(row.compaction.state, 'completed');
  assert.equal(compactionText(row.compaction), 'Compacted the conversation: ~91k → ~12k tokens');
  assert.ok(changed.includes(row.id));
  const note = state.items[1];
  assert.ok(note?.type === 'instructions');
  assert.equal(instructionsText(note.sources), 'Instructions: AGENTS.md');
});

test('a failed compaction shows its message; a second compaction gets its own row', () => {
  const { state } = reduceAll(EMPTY_STATE, [
    up({ kind: 'compaction_update', state: 'started', reason: 'request', tokensBefore: 5000 }),
    up({ kind: 'compaction_update', state: 'failed', message: 'the summary was cut off' }),
    up({ kind: 'compaction_update', state: 'started', reason: 'overflow', tokensBefore: 130000 }),
  ]);
  const rows = state.items.flatMap((item) => (item.type === 'compaction' ? [compactionText(item.compaction)] : []));
  assert.deepEqual(rows, [
    'Compaction failed: the summary was cut off (the history is unchanged)',
    'Compacting the conversation (~130k tokens)… — the model refused a too-long request',
  ]);
});

test('"always allow" answers carry the confirmed or edited prefix; other options never do', () => {
  assert.deepEqual(selectedOutcome('allow_always', 'npm test', '  npm   test  '), { outcome: 'selected', optionId: 'allow_always', prefix: 'npm test' });
  assert.deepEqual(selectedOutcome('allow_always', 'npm test', 'npm'), { outcome: 'selected', optionId: 'allow_always', prefix: 'npm' });
  assert.deepEqual(selectedOutcome('allow_always', 'npm test', ''), { outcome: 'selected', optionId: 'allow_always', prefix: 'npm test' });
  assert.deepEqual(selectedOutcome('allow_once', 'npm test', 'npm'), { outcome: 'selected', optionId: 'allow_once' });
  assert.deepEqual(selectedOutcome('allow_always', undefined, 'npm'), { outcome: 'selected', optionId: 'allow_always' });
  assert.deepEqual(parseViewMessage({ type: 'answer', requestId: 'r1', optionId: 'allow_always', prefix: 'npm' }), {
    type: 'answer',
    requestId: 'r1',
    optionId: 'allow_always',
    prefix: 'npm',
  });
});

test('a shell question offers its prefix; the edited prefix reaches the server and the card', async () => {
  const raw = {
    sessionId: 's1',
    toolCall: { toolCallId: 'c1', title: 'Run npm test -- --watch=false', kind: 'execute', rawInput: { command: 'npm test -- --watch=false' } },
    options: [
      { optionId: 'allow_once', name: 'Allow', kind: 'allow_once' },
      { optionId: 'allow_always', name: 'Always allow `npm test` in this workspace', kind: 'allow_always' },
      { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
    ],
    prefix: 'npm test',
  };
  assert.equal(parsePermissionRequest(raw)?.prefix, 'npm test');
  assert.equal(parsePermissionRequest({ ...raw, prefix: '  ' })?.prefix, undefined);
  const applied: ChatEvent[] = [];
  const sessions = { apply: (_id: string, events: ChatEvent[]) => applied.push(...events) };
  const log = { warn: () => undefined };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- only the members Approvals uses
  const approvals = new Approvals(sessions as any, log as any, () => undefined);
  const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose: () => undefined }) };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a CancellationToken stand-in
  const answer: Promise<PermissionResponse> = approvals.handle(raw, token as any);
  const requested = applied[0];
  assert.ok(requested?.type === 'permissionRequested');
  assert.equal(requested.prefix, 'npm test');
  approvals.answer(requested.requestId, 'allow_always', 'npm');
  assert.deepEqual(await answer, { outcome: { outcome: 'selected', optionId: 'allow_always', prefix: 'npm' } });
  const { state } = reduceAll(EMPTY_STATE, applied);
  const card = state.items[0];
  assert.ok(card?.type === 'permission');
  assert.equal(card.prefix, 'npm test');
  assert.equal(card.answeredPrefix, 'npm');
  assert.equal(card.status, 'selected');
});

test('a queued compaction (dsh/session/compact during a turn) is the row its start and end settle', () => {
  const queued = reduceAll(EMPTY_STATE, [up({ kind: 'compaction_update', state: 'queued' })]).state;
  const first = queued.items[0];
  assert.ok(first?.type === 'compaction');
  assert.equal(compactionText(first.compaction), 'Compaction queued: it runs when the current step ends');
  const { state } = reduceAll(queued, [
    up({ kind: 'compaction_update', state: 'started', reason: 'request', tokensBefore: 5000 }),
    up({ kind: 'compaction_update', state: 'completed', tokensBefore: 5000, tokensAfter: 1000 }),
  ]);
  const rows = state.items.flatMap((item) => (item.type === 'compaction' ? [compactionText(item.compaction)] : []));
  assert.deepEqual(rows, ['Compacted the conversation: ~5.0k → ~1.0k tokens']);
});
