import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readClientSettings, readServerSettings, substitute } from '../../src/core/settings';

const from = (values: Record<string, unknown>) => (key: string) => values[key];

test('server settings nest by key and leave unset values out', () => {
  const { settings, problems } = readServerSettings(
    from({
      'model.name': 'deepseek-v4-pro',
      'model.baseUrl': null,
      'model.apiKeyEnv': 'MY_KEY',
      'permissions.edit': 'ask',
      'permissions.shell': 'deny',
      'edits.saveAfterTurn': true,
      maxStepsPerTurn: 12,
      sessionDir: '',
    }),
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(settings, {
    model: { name: 'deepseek-v4-pro', apiKeyEnv: 'MY_KEY' },
    permissions: { edit: 'ask', shell: 'deny' },
    edits: { saveAfterTurn: true },
    maxStepsPerTurn: 12,
  });
});

test('invalid values are reported and not sent', () => {
  const { settings, problems } = readServerSettings(
    from({ 'permissions.edit': 'sometimes', maxStepsPerTurn: 0, 'model.thinking': true, 'model.name': 5 }),
  );
  assert.deepEqual(settings, {});
  assert.equal(problems.length, 4);
  assert.match(problems.join('\n'), /dsh\.permissions\.edit must be one of allow, ask/);
  assert.match(problems.join('\n'), /dsh\.maxStepsPerTurn must be an integer from 1 to/);
});

test('saveAfterTurn is sent when false too, and only as a boolean', () => {
  assert.deepEqual(readServerSettings(from({ 'edits.saveAfterTurn': false })), { settings: { edits: { saveAfterTurn: false } }, problems: [] });
  const { settings, problems } = readServerSettings(from({ 'edits.saveAfterTurn': 'yes' }));
  assert.deepEqual(settings, {});
  assert.deepEqual(problems, ['dsh.edits.saveAfterTurn must be true or false (got "yes")']);
});

test('the request knobs are sent when valid and reported when not', () => {
  const knobs = { 'model.reasoningEffort': 'high', 'model.temperature': 0.5, 'model.maxTokens': 100, 'model.stop': ['END'] };
  assert.deepEqual(readServerSettings(from(knobs)), {
    settings: { model: { reasoningEffort: 'high', temperature: 0.5, maxTokens: 100, stop: ['END'] } },
    problems: [],
  });
  assert.deepEqual(readServerSettings(from({ 'model.stop': [] })), { settings: {}, problems: [] });
  const bad = readServerSettings(from({ 'model.temperature': 3, 'model.maxTokens': 0, 'model.stop': [1], 'model.reasoningEffort': 'x' }));
  assert.deepEqual(bad.settings, {});
  assert.equal(bad.problems.length, 4);
});

test('an out-of-range step limit is reported', () => {
  assert.equal(readServerSettings(from({ maxStepsPerTurn: 1_000_000 })).problems.length, 1);
  assert.equal(readServerSettings(from({ maxStepsPerTurn: 2.5 })).problems.length, 1);
});

test('sessionDir expands variables; other strings are sent verbatim', () => {
  const vars = { workspaceFolder: '/w', userHome: '/home/u', env: { STATE: '/state' } };
  assert.deepEqual(readServerSettings(from({ sessionDir: '${workspaceFolder}/.dsh', 'model.name': '${workspaceFolder}' }), vars).settings, {
    model: { name: '${workspaceFolder}' },
    sessionDir: '/w/.dsh',
  });
  assert.equal(substitute('~/x', vars), '/home/u/x');
  assert.equal(substitute('${env:STATE}/s', vars), '/state/s');
  assert.equal(substitute('${env:MISSING}/s', vars), '/s');
  assert.equal(substitute('${workspaceFolder}/a', {}), '${workspaceFolder}/a');
});

test('server.command takes an argv array (or one program path) and expands variables', () => {
  assert.deepEqual(readClientSettings(from({ 'server.command': ['${workspaceFolder}/.venv/bin/dsh-lsp', '--log-level', 'debug'] }), { workspaceFolder: '/w' }).settings, {
    serverCommand: ['/w/.venv/bin/dsh-lsp', '--log-level', 'debug'],
  });
  assert.deepEqual(readClientSettings(from({ 'server.command': '/opt/dsh lsp/dsh-lsp' })).settings, { serverCommand: ['/opt/dsh lsp/dsh-lsp'] });
  assert.deepEqual(readClientSettings(from({ 'server.command': [] })), { settings: { serverCommand: [] }, problems: [] });
  assert.equal(readClientSettings(from({ 'server.command': [1, 2] })).problems.length, 1);
});
