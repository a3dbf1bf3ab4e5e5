import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attachmentLabel, extractMentions, promptBlocks } from '../../src/core/attachments';
import { RestartPolicy } from '../../src/core/backoff';
import { coalesce } from '../../src/core/batching';
import { proposeEdit } from '../../src/core/proposedText';
import { resolveServerLaunch, whichIn } from '../../src/core/serverCommand';
import { parseModelEndpoint, presentStatus } from '../../src/core/statusModel';
import { type ChatEvent, EMPTY_STATE, reduceAll } from '../../src/core/viewModel';
import { parseViewMessage } from '../../src/core/webviewProtocol';

test('restart delays double up to the cap, and a stable run resets the count', () => {
  const policy = new RestartPolicy({ initialMs: 100, maxMs: 500, maxAttempts: 4, stableMs: 10_000 });
  policy.started(0);
  const delays = [1, 2, 3, 4].map((i) => {
    const decision = policy.crashed(i);
    policy.started(i);
    return decision;
  });
  assert.deepEqual(delays, [
    { action: 'restart', delayMs: 100, attempt: 1 },
    { action: 'restart', delayMs: 200, attempt: 2 },
    { action: 'restart', delayMs: 400, attempt: 3 },
    { action: 'restart', delayMs: 500, attempt: 4 },
  ]);
  assert.deepEqual(policy.crashed(5), { action: 'giveUp', attempts: 4 });
  policy.reset();
  policy.started(100);
  assert.deepEqual(policy.crashed(200), { action: 'restart', delayMs: 100, attempt: 1 });
  policy.started(1000);
  assert.deepEqual(policy.crashed(1000 + 10_000), { action: 'restart', delayMs: 100, attempt: 1 }, 'a stable run starts afresh');
});

test('server launch: setting first, then dsh-lsp on PATH, then the interpreter, then python3', async () => {
  const deps = (onPath?: string, python?: string) => ({ which: async () => onPath, interpreter: async () => python });
  assert.deepEqual(await resolveServerLaunch(['/x/dsh-lsp', '--log-level', 'debug'], deps('/bin/dsh-lsp')), {
    command: '/x/dsh-lsp',
    args: ['--log-level', 'debug'],
    source: 'setting',
  });
  assert.deepEqual(await resolveServerLaunch([], deps('/bin/dsh-lsp', '/py')), { command: '/bin/dsh-lsp', args: [], source: 'path' });
  assert.deepEqual(await resolveServerLaunch([], deps(undefined, '/venv/bin/python')), {
    command: '/venv/bin/python',
    args: ['-m', 'dsh_lsp'],
    source: 'interpreter',
  });
  assert.deepEqual(await resolveServerLaunch([], deps()), { command: 'python3', args: ['-m', 'dsh_lsp'], source: 'interpreter' });
});

test('PATH lookup takes the first executable match', async () => {
  const present = new Set(['/b/dsh-lsp', '/c/dsh-lsp']);
  assert.equal(await whichIn('dsh-lsp', '/a::/b/:/c', ':', async (p) => present.has(p)), '/b/dsh-lsp');
  assert.equal(await whichIn('dsh-lsp', undefined, ':', async () => true), undefined);
});

test('proposed text: replacements apply in order to the current text', () => {
  assert.deepEqual(proposeEdit('a = 1\nb = 2\n', [{ oldText: 'b = 2', newText: 'b = 3' }]), {
    kind: 'whole',
    original: 'a = 1\nb = 2\n',
    proposed: 'a = 1\nb = 3\n',
  });
  assert.deepEqual(
    proposeEdit('x x y', [
      { oldText: 'y', newText: 'z' },
      { oldText: 'z', newText: 'w' },
    ]),
    { kind: 'whole', original: 'x x y', proposed: 'x x w' },
  );
  assert.deepEqual(proposeEdit('x x', [{ oldText: 'x', newText: 'y' }], true), { kind: 'whole', original: 'x x', proposed: 'y y' });
  assert.deepEqual(proposeEdit('a$&b', [{ oldText: 'b', newText: '$&' }]), { kind: 'whole', original: 'a$&b', proposed: 'a$&$&' }, 'no $-patterns');
});

test('proposed text: writes replace the whole file; new files start empty', () => {
  assert.deepEqual(proposeEdit(undefined, [{ oldText: null, newText: 'new\n' }]), { kind: 'whole', original: '', proposed: 'new\n' });
});

test('proposed text: CRLF documents take LF replacements', () => {
  const result = proposeEdit('a\r\nb\r\nc\r\n', [{ oldText: 'a\nb', newText: 'a\nB' }]);
  assert.deepEqual(result, { kind: 'whole', original: 'a\r\nb\r\nc\r\n', proposed: 'a\r\nB\r\nc\r\n' });
});

test('proposed text: unplaceable replacements fall back to comparing fragments', () => {
  const missing = proposeEdit('abc', [{ oldText: 'zzz', newText: 'y' }]);
  assert.equal(missing.kind, 'fragment');
  const ambiguous = proposeEdit('x x', [{ oldText: 'x', newText: 'y' }]);
  assert.ok(ambiguous.kind === 'fragment' && /more than once/.test(ambiguous.reason));
});

test('attachments: labels, blocks and mentions', () => {
  const range = { start: { line: 2, character: 0 }, end: { line: 6, character: 0 } };
  assert.equal(attachmentLabel('src/a.py', range), 'src/a.py:3-6');
  assert.equal(attachmentLabel('src/a.py', { start: { line: 2, character: 1 }, end: { line: 2, character: 5 } }), 'src/a.py:3');
  assert.equal(attachmentLabel('src/a.py'), 'src/a.py');
  assert.deepEqual(
    promptBlocks('fix it', [
      { uri: 'file:///w/a.py', label: 'a.py', range },
      { uri: 'file:///w/a.py', label: 'a.py', range },
      { uri: 'file:///w/b.py', label: 'b.py' },
    ]),
    [
      { type: 'text', text: 'fix it' },
      { type: 'resource_link', uri: 'file:///w/a.py', range },
      { type: 'resource_link', uri: 'file:///w/b.py' },
    ],
  );
  assert.deepEqual(promptBlocks('  ', []), []);
  assert.deepEqual(extractMentions('look at @src/app.py, and @README.md. mail a@b.c @'), ['src/app.py', 'README.md']);
});

test('coalescing chunks keeps the reducer result identical', () => {
  const events: ChatEvent[] = [];
  for (let i = 0; i < 50; i++) events.push({ type: 'update', update: { kind: i % 10 < 5 ? 'agent_message_chunk' : 'agent_thought_chunk', text: `${i},` } });
  events.push({ type: 'update', update: { kind: 'tool_call', toolCallId: 't', status: 'pending' } });
  events.push({ type: 'update', update: { kind: 'agent_message_chunk', text: 'end' } });
  const merged = coalesce(events);
  assert.equal(merged.length, 12);
  assert.deepEqual(reduceAll(EMPTY_STATE, merged).state, reduceAll(EMPTY_STATE, events).state);
});

test('webview messages are checked before use', () => {
  assert.deepEqual(parseViewMessage({ type: 'send', text: 'hi' }), { type: 'send', text: 'hi' });
  assert.deepEqual(parseViewMessage({ type: 'answer', requestId: 'r1', optionId: 'allow_once' }), { type: 'answer', requestId: 'r1', optionId: 'allow_once' });
  assert.deepEqual(parseViewMessage({ type: 'answer', requestId: 'r1' }), { type: 'answer', requestId: 'r1' });
  assert.deepEqual(parseViewMessage({ type: 'cancel', extra: 1 }), { type: 'cancel' });
  assert.deepEqual(parseViewMessage({ type: 'openLocation', path: '/a', line: 3 }), { type: 'openLocation', path: '/a', line: 3 });
  for (const bad of [null, 'send', { type: 'send' }, { type: 'showDiff', itemId: 'x', index: -1 }, { type: 'removeAttachment', index: 1.5 }, { type: 'eval', code: 'x' }]) {
    assert.equal(parseViewMessage(bad), undefined, JSON.stringify(bad));
  }
});

test('status presentation follows server state, then turn activity', () => {
  assert.equal(presentStatus({ kind: 'running' }, 'idle').severity, 'normal');
  assert.match(presentStatus({ kind: 'running' }, 'running').text, /running/);
  assert.equal(presentStatus({ kind: 'running' }, 'requires_action').severity, 'warning');
  assert.equal(presentStatus({ kind: 'error', message: 'boom' }, 'running').severity, 'error');
  assert.match(presentStatus({ kind: 'restarting', attempt: 2, delayMs: 1000, reason: 'exited' }, 'idle').tooltip, /restart 2 in 1 s/);
});

test('the status bar shows the model in use and its tooltip the endpoint (dsh/status)', () => {
  const answer = { model: 'qwen3-coder', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: 'DEEPSEEK_API_KEY', apiKeySet: false, apiKeyRequired: false };
  const endpoint = parseModelEndpoint(answer);
  assert.deepEqual(endpoint, answer);
  const shown = presentStatus({ kind: 'running' }, 'idle', endpoint);
  assert.match(shown.text, /qwen3-coder/);
  assert.match(shown.tooltip, /model qwen3-coder at http:\/\/127\.0\.0\.1:8000\/v1/);
  assert.equal(shown.severity, 'normal');
  const remote = parseModelEndpoint({ ...answer, baseUrl: 'https://api.deepseek.com/v1', apiKeyRequired: true });
  const missing = presentStatus({ kind: 'running' }, 'idle', remote);
  assert.match(missing.tooltip, /\$DEEPSEEK_API_KEY is not set/);
  assert.equal(missing.severity, 'warning');
  assert.doesNotMatch(presentStatus({ kind: 'starting' }, 'idle', endpoint).text, /qwen3-coder/);
  assert.equal(parseModelEndpoint({ error: 'x' }), undefined);
  assert.equal(parseModelEndpoint(null), undefined);
});

test('a one-line edit of a file shows as one line removed and one added, with context', async () => {
  const { lineDiff } = await import('../../src/core/lineDiff.js');
  const old = 'a\nb\nc\nd\ne\nf\ng\nh\ni\n';
  const next = 'a\nb\nc\nd\nE\nf\ng\nh\ni\n';
  assert.deepEqual(lineDiff(old, next, 1), [
    ['ctx', '  d'],
    ['del', '- e'],
    ['add', '+ E'],
    ['ctx', '  f'],
  ]);
  assert.deepEqual(lineDiff('x = 1\ny = 2\nz = 3\n', 'x = 1\ny = 20\nz = 3\n'), [
    ['ctx', '  x = 1'],
    ['del', '- y = 2'],
    ['add', '+ y = 20'],
    ['ctx', '  z = 3'],
  ]);
  assert.deepEqual(lineDiff(null, 'new\n'), [['add', '+ new']]);
  const two = lineDiff('1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n', '1\nTWO\n3\n4\n5\n6\n7\n8\nNINE\n10\n', 1);
  assert.deepEqual(two.map(([kind]: readonly [string, string]) => kind), ['ctx', 'del', 'add', 'ctx', 'gap', 'ctx', 'del', 'add', 'ctx']);
});

test('approval buttons: only "allow once" is primary; card text shows workspace paths relative', async () => {
  const { optionStyle, relativeText } = await import('../../src/core/lineDiff.js');
  assert.equal(optionStyle('allow_once'), 'primary');
  assert.equal(optionStyle('allow_always'), 'secondary');
  assert.equal(optionStyle('reject_once'), 'secondary');
  assert.equal(relativeText('<path>/w/src/app.py</path>\n1: x', '/w'), '<path>src/app.py</path>\n1: x');
  assert.equal(relativeText('/elsewhere/a', '/w'), '/elsewhere/a');
});
