/**
 * Load test of the bundled extension (dist/extension.js) under a stub `vscode` module, wired to
 * a scripted fake server through the real vscode-languageclient: activation registers every
 * contribution; the client advertises `experimental.dsh`, sends the typed settings; a prompt
 * from the webview streams into the view, an approval card is answered, "Show diff" opens
 * `vscode.diff` on the proposed text, `dsh/saveDocuments` saves the open documents it lists;
 * the five `dsh/editor/*` requests are answered from the stub's diagnostics and provider
 * commands; a crashed server is restarted; deactivate shuts down.
 */

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { ChatEvent } from '../../src/core/viewModel';
import { EMPTY_STATE, reduceAll } from '../../src/core/viewModel';
import { EXTENSION_ROOT } from '../paths';
import { installVscodeStub, type StubWorld } from './vscodeStub';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test assertions index freely

const FAKE_SERVER = path.join(EXTENSION_ROOT, 'out', 'test', 'fixtures', 'fakeServer.js');
const BUNDLE = path.join(EXTENSION_ROOT, 'dist', 'extension.js');
let dir: string;
/** The workspace folder the stub reports (it must exist: the server is spawned in it). */
let ws: string;

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'dsh-load-'));
  ws = path.join(dir, 'ws');
  mkdirSync(ws);
});
after(() => { if (!process.env.DSH_TEST_DEBUG) rmSync(dir, { recursive: true, force: true }); });

/** Points the fake server's message log (`FAKE_SERVER_LOG`) at `name` in the test folder; returns its path. */
function logServerTo(name: string): string {
  const logFile = path.join(dir, name);
  process.env.FAKE_SERVER_LOG = logFile;
  return logFile;
}

function serverLog(file: string): Json[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Json);
  } catch {
    return [];
  }
}

interface Loaded {
  world: StubWorld;
  extension: { activate(context: unknown): Promise<void>; deactivate(): Promise<void> };
  context: { subscriptions: { dispose(): unknown }[] };
  /** Paths of the documents whose `save()` ran, in order. */
  saves: string[];
}

/** Load the bundle against a fresh stub; `documents` (path → text) are open in the "editor". */
function load(config: Record<string, unknown>, documents: Record<string, string> = {}): Loaded {
  const world = installVscodeStub({ config, workspaceRoot: ws });
  const FileUri = world.vscode.Uri as { file(p: string): unknown };
  const saves: string[] = [];
  (world.vscode.workspace as Json).textDocuments = Object.entries(documents).map(([file, text]) => ({
    uri: FileUri.file(file),
    languageId: 'python',
    version: 3,
    isClosed: false,
    isUntitled: false,
    getText: () => text,
    save: async () => {
      saves.push(file);
      return true;
    },
  }));
  delete require.cache[BUNDLE];
  const extension = require(BUNDLE) as Loaded['extension'];
  const Uri = world.vscode.Uri as { file(p: string): unknown };
  const secrets = new Map<string, string>([['dsh.apiKey', 'sk-test-secret']]);
  const context = {
    subscriptions: [] as { dispose(): unknown }[],
    extensionUri: Uri.file(EXTENSION_ROOT),
    secrets: {
      get: async (key: string) => secrets.get(key),
      store: async (key: string, value: string) => void secrets.set(key, value),
      delete: async (key: string) => void secrets.delete(key),
      onDidChange: () => ({ dispose: () => undefined }),
    },
  };
  return { world, extension, context, saves };
}

async function unload({ world, extension, context }: Loaded): Promise<void> {
  if (process.env.DSH_TEST_DEBUG) for (const line of world.output) console.error(`[${line.level}] ${line.text}`);
  await extension.deactivate();
  for (const disposable of context.subscriptions) disposable.dispose();
  world.uninstall();
}

const eventsOf = (posted: unknown[]): ChatEvent[] => posted.flatMap((m) => ((m as Json).type === 'events' ? ((m as Json).events as ChatEvent[]) : []));
const isStatus = (pattern: RegExp) => (m: unknown) => (m as Json).type === 'status' && pattern.test(String((m as Json).status.tooltip));

test('activation, settings, a streamed turn with an approval, Show diff, and shutdown', async () => {
  const logFile = logServerTo('server.jsonl');
  const loaded = load(
    {
      'dsh.server.command': [process.execPath, FAKE_SERVER],
      'dsh.model.name': 'deepseek-v4-flash',
      'dsh.model.apiKeyEnv': 'DSH_TEST_KEY',
      'dsh.permissions.edit': 'ask',
      'dsh.edits.saveAfterTurn': true,
      'dsh.maxStepsPerTurn': 7,
      'dsh.sessionDir': '${workspaceFolder}/.sessions',
    },
    { [path.join(ws, 'a.py')]: 'x = 1\ny = 2\n' },
  );
  const { world, extension, context } = loaded;
  try {
    await extension.activate(context);
    assert.deepEqual([...world.commands.keys()].sort(), [
      'dsh.ask',
      'dsh.cancel',
      'dsh.compact',
      'dsh.focusChat',
      'dsh.newSession',
      'dsh.restartServer',
      'dsh.setApiKey',
      'dsh.showSessions',
    ]);
    assert.ok(world.viewProviders.has('dsh.chat'));
    assert.ok(world.contentProviders.has('dsh-proposed'));
    assert.equal(world.statusItems.length, 1);

    const view = world.openWebview('dsh.chat');
    assert.match(view.html, /Content-Security-Policy/);
    view.receive({ type: 'ready' });
    await view.waitForPost((m) => (m as Json).type === 'reset');
    await view.waitForPost(isStatus(/idle/));
    assert.match(world.statusItems[0]?.text ?? '', /dsh/);

    view.receive({ type: 'send', text: 'please fix it' });
    const permission = (await view.waitForPost((m) => eventsOf([m]).some((e) => e.type === 'permissionRequested'))) as Json;
    const request = eventsOf([permission]).find((e) => e.type === 'permissionRequested');
    assert.ok(request?.type === 'permissionRequested');
    assert.match(world.statusItems[0]?.text ?? '', /approval needed/);

    view.receive({ type: 'showDiff', itemId: `perm:${request.requestId}`, index: 0 });
    view.receive({ type: 'answer', requestId: request.requestId, optionId: 'allow_once' });
    await view.waitForPost((m) => eventsOf([m]).some((e) => e.type === 'turnEnded'));

    const { state } = reduceAll(EMPTY_STATE, eventsOf(view.posted));
    assert.deepEqual(
      state.items.map((item) => item.type),
      ['user', 'thought', 'agent', 'tool', 'permission', 'turn'],
    );
    const [user, , agent, tool, card, footer] = state.items;
    assert.ok(user?.type === 'user' && !user.pending);
    assert.deepEqual(user.content, [{ type: 'text', text: 'please fix it' }]);
    assert.ok(agent?.type === 'agent' && agent.text === 'I will edit `a.py`.');
    assert.ok(tool?.type === 'tool' && tool.call.status === 'completed' && tool.call.toolKind === 'edit');
    assert.ok(card?.type === 'permission' && card.status === 'selected' && card.optionId === 'allow_once');
    assert.ok(footer?.type === 'turn');
    assert.deepEqual(footer.usage, { inputTokens: 100, outputTokens: 20, cacheReadTokens: 64 });
    assert.equal(state.running, false);

    const diff = world.executed.find((call) => call[0] === 'vscode.diff') as [string, Json, Json, string] | undefined;
    assert.ok(diff, 'Show diff ran vscode.diff');
    assert.equal(diff[1].toString(), `file://${ws}/a.py`);
    assert.equal(diff[2].scheme, 'dsh-proposed');
    assert.equal(world.contentProviders.get('dsh-proposed')?.provideTextDocumentContent(diff[2] as never), 'x = 2\ny = 2\n');
  } finally {
    await unload(loaded);
  }

  const entries = serverLog(logFile);
  const start = entries[0] ?? {};
  assert.deepEqual(start.argv.slice(-1), ['--stdio']);
  assert.equal(start.apiKey, 'sk-test-secret', 'the key from secret storage reaches the server in apiKeyEnv');
  const init = entries.find((e) => e.method === 'initialize')?.params as Json;
  assert.deepEqual(init.capabilities.experimental.dsh, {
    version: 1,
    sessionUpdates: true,
    permissions: true,
    saveDocuments: true,
    editor: { diagnostics: true, definition: true, references: true, symbols: true, hover: true },
  });
  assert.equal(init.capabilities.workspace.applyEdit, true);
  assert.equal(init.capabilities.workspace.workspaceEdit.documentChanges, true);
  const settings = {
    model: { name: 'deepseek-v4-flash', apiKeyEnv: 'DSH_TEST_KEY' },
    permissions: { edit: 'ask' },
    edits: { saveAfterTurn: true },
    maxStepsPerTurn: 7,
    sessionDir: `${ws}/.sessions`,
  };
  assert.deepEqual(init.initializationOptions, settings);
  const configuration = entries.find((e) => e.method === 'workspace/configuration:answer')?.answer as unknown[];
  assert.deepEqual(configuration[0], settings);
  const opened = entries.find((e) => e.method === 'textDocument/didOpen')?.params as Json;
  assert.equal(opened.textDocument.uri, `file://${ws}/a.py`);
  assert.equal(opened.textDocument.text, 'x = 1\ny = 2\n');
  assert.deepEqual(entries.find((e) => e.method === 'dsh/session/new')?.params, { cwd: ws });
  assert.deepEqual(entries.find((e) => e.method === 'dsh/prompt')?.params, { sessionId: 'fake-1', prompt: [{ type: 'text', text: 'please fix it' }] });
  assert.deepEqual(entries.find((e) => e.method === 'dsh/requestPermission:answer')?.answer, { outcome: { outcome: 'selected', optionId: 'allow_once' } });
  const save = entries.find((e) => e.method === 'dsh/saveDocuments:answer');
  assert.deepEqual(save?.params.uris, [`file://${ws}/a.py`, 'file:///nowhere/never-opened.py']);
  assert.deepEqual(save?.answer, { saved: [`file://${ws}/a.py`] }, 'the open document is saved, the unknown one left out');
  assert.deepEqual(loaded.saves, [path.join(ws, 'a.py')]);
  assert.ok(entries.some((e) => e.method === 'shutdown'), 'deactivate shuts the server down');
});

test('a crashed server is restarted with backoff and comes back', async () => {
  const logFile = logServerTo('crash.jsonl');
  process.env.FAKE_SERVER_CRASH_ONCE = path.join(dir, 'crashed-once');
  const loaded = load({ 'dsh.server.command': [process.execPath, FAKE_SERVER] });
  try {
    await loaded.extension.activate(loaded.context);
    const view = loaded.world.openWebview('dsh.chat');
    view.receive({ type: 'ready' });
    await view.waitForPost(isStatus(/restart 1 in 0\.5 s/));
    const restarted = view.posted.length;
    await view.waitForPost((m) => view.posted.indexOf(m) >= restarted && isStatus(/idle/)(m));
    assert.equal(serverLog(logFile).filter((e) => e.method === 'initialize').length, 2);
    assert.ok(loaded.world.output.some((line) => /the server process exited/.test(line.text)));
  } finally {
    delete process.env.FAKE_SERVER_CRASH_ONCE;
    await unload(loaded);
  }
});

test('dsh.ask sends the question with the selection as a resource_link; a rejected approval fails the tool call', async () => {
  const logFile = logServerTo('ask.jsonl');
  const file = path.join(ws, 'b.py');
  const loaded = load({ 'dsh.server.command': [process.execPath, FAKE_SERVER] }, { [file]: 'a\nb\nc\n' });
  const { world } = loaded;
  const Range = world.vscode.Range as new (a: number, b: number, c: number, d: number) => Json;
  const selection = Object.assign(new Range(1, 0, 2, 1), { isEmpty: false });
  (world.vscode.window as Json).activeTextEditor = { document: (world.vscode.workspace as Json).textDocuments[0], selection };
  world.inputBoxAnswer = 'what does this do?';
  try {
    await loaded.extension.activate(loaded.context);
    const view = world.openWebview('dsh.chat');
    view.receive({ type: 'ready' });
    await view.waitForPost(isStatus(/idle/));
    const asking = world.commands.get('dsh.ask')?.();
    const permission = (await view.waitForPost((m) => eventsOf([m]).some((e) => e.type === 'permissionRequested'))) as Json;
    const request = eventsOf([permission]).find((e) => e.type === 'permissionRequested');
    assert.ok(request?.type === 'permissionRequested');
    view.receive({ type: 'answer', requestId: request.requestId, optionId: 'reject_once' });
    await asking;
    await view.waitForPost((m) => eventsOf([m]).some((e) => e.type === 'turnEnded'));
    const { state } = reduceAll(EMPTY_STATE, eventsOf(view.posted));
    const tool = state.items.find((item) => item.type === 'tool');
    assert.ok(tool?.type === 'tool' && tool.call.status === 'failed');
  } finally {
    await unload(loaded);
  }
  const prompt = serverLog(logFile).find((e) => e.method === 'dsh/prompt')?.params as Json;
  assert.deepEqual(prompt.prompt, [
    { type: 'text', text: 'what does this do?' },
    { type: 'resource_link', uri: `file://${file}`, range: { start: { line: 1, character: 0 }, end: { line: 2, character: 1 } } },
  ]);
  assert.deepEqual(serverLog(logFile).find((e) => e.method === 'dsh/requestPermission:answer')?.answer, { outcome: { outcome: 'selected', optionId: 'reject_once' } });
});

test('dsh/editor/* are answered from the editor: version-exact diagnostics, reduced locations, LSP symbol kinds, hover Markdown', async () => {
  const logFile = logServerTo('editor.jsonl');
  const file = path.join(ws, 'c.py');
  const loaded = load({ 'dsh.server.command': [process.execPath, FAKE_SERVER] }, { [file]: 'x = 1\ny = x\n' });
  const { world } = loaded;
  const vs = world.vscode as Json;
  const uri = vs.Uri.file(file);
  const range = (a: number, b: number, c: number, d: number) => new vs.Range(a, b, c, d);
  const other = vs.Uri.file(path.join(ws, 'lib.py'));
  // the document is at version 3; a language server reports on it after activation
  world.diagnostics.set(uri.toString(), [
    { range: range(1, 4, 1, 5), severity: 0, code: { value: 'F821', target: uri }, source: 'Ruff', message: 'Undefined name `x`' },
  ]);
  world.commands.set('vscode.executeDefinitionProvider', () => [{ targetUri: other, targetRange: range(0, 0, 3, 0), targetSelectionRange: range(0, 4, 0, 5) }]);
  world.commands.set('vscode.executeReferenceProvider', () => [
    { uri: other, range: range(0, 4, 0, 5) },
    { uri, range: range(1, 4, 1, 5) },
    { uri, range: range(1, 4, 1, 5) },
  ]);
  world.commands.set('vscode.executeWorkspaceSymbolProvider', () => [{ name: 'y', kind: 12, containerName: '', location: { uri, range: range(1, 0, 1, 1) } }]);
  world.commands.set('vscode.executeHoverProvider', () => [{ contents: [{ language: 'python', value: 'y: int' }, { value: 'A **number**.' }] }]);
  try {
    await loaded.extension.activate(loaded.context);
    const view = world.openWebview('dsh.chat');
    view.receive({ type: 'ready' });
    await view.waitForPost(isStatus(/idle/));
    world.diagnosticsChanged.fire({ uris: [uri] });
    view.receive({ type: 'send', text: 'probe the editor' });
    await view.waitForPost((m) => eventsOf([m]).some((e) => e.type === 'turnEnded'));
  } finally {
    await unload(loaded);
  }
  const answers = serverLog(logFile).filter((e) => String(e.method).endsWith(':answer') && String(e.method).startsWith('dsh/editor/'));
  const wireUri = `file://${file}`;
  const ruff = { range: { start: { line: 1, character: 4 }, end: { line: 1, character: 5 } }, severity: 1, code: 'F821', source: 'Ruff', message: 'Undefined name `x`' };
  assert.deepEqual(
    answers.map((e) => e.answer),
    [
      { items: [{ uri: wireUri, version: 3, complete: true, diagnostics: [ruff] }] },
      { items: [{ uri: wireUri, version: 3, complete: false, diagnostics: [ruff] }] },
      { items: [{ uri: wireUri, version: 3, complete: true, diagnostics: [ruff] }] },
      { locations: [{ uri: other.toString(), range: { start: { line: 0, character: 4 }, end: { line: 0, character: 5 } } }] },
      { locations: [{ uri: wireUri, range: { start: { line: 1, character: 4 }, end: { line: 1, character: 5 } } }] },
      { symbols: [{ name: 'y', kind: 13, location: { uri: wireUri, range: { start: { line: 1, character: 0 }, end: { line: 1, character: 1 } } } }] },
      { contents: '```python\ny: int\n```\n\nA **number**.' },
    ],
  );
  const executed = world.executed.map((call) => call[0]);
  assert.ok(executed.includes('vscode.executeDefinitionProvider') && executed.includes('vscode.executeHoverProvider'));
});
