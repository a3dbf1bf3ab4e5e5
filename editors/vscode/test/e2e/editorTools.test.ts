/**
 * End to end: the editor's language servers as agent tools (`dsh/editor/*`), against the real
 * server and the scripted model. The test editor advertises `experimental.dsh.editor` as the
 * extension does and answers every `dsh/editor/*` request with the extension's own handlers
 * (`src/core/editorRequests.ts`, the version rule included) over its documents and a JSON
 * checker standing in for VS Code's JSON language server. An edit that breaks an open JSON
 * document gets that diagnostic in its result, for the version the edit made; the fix gets "no
 * new problems"; a language server that never reports on the new version is never taken for
 * current; `definition` answers with the editor's location; without the capability the tools
 * are not offered.
 */

import assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { completion, DshServer, ScriptedModel, skipWithoutServer as skip, worlds } from './harness';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- assertions index decoded JSON

const options = { skip };
const made = worlds('dsh-e2e-editor-');

async function world(responses: (workspace: string) => Json[], files: Record<string, string>, settings: Json = {}, editor = true) {
  const { workspace, model, server } = await made.make({ responses, files, settings, editor });
  const sessionId = (await server.request<{ sessionId: string }>('dsh/session/new', {})).sessionId;
  return { workspace, model, server, sessionId };
}

const prompt = (server: DshServer, sessionId: string, text: string) => server.request<Json>('dsh/prompt', { sessionId, prompt: [{ type: 'text', text }] });

/** The text of the tool result with `toolCallId` the model received (in any later request). */
function toolResult(model: ScriptedModel, toolCallId: string): string {
  for (const request of model.requests()) {
    for (const message of (request.messages ?? []) as Json[]) if (message.role === 'tool' && message.tool_call_id === toolCallId) return String(message.content);
  }
  return '';
}

const toolNames = (request: Json | undefined) => ((request?.tools ?? []) as Json[]).map((tool) => String(tool.function?.name));

const DATA = '{\n  "a": 1,\n  "b": 2\n}\n';

/** The model's script: read data.json, make each edit (call id, old text, new text) to it, then answer `text`. */
function editsOfData(edits: [id: string, oldString: string, newString: string][], text: string) {
  return (ws: string) => {
    const file = path.join(ws, 'data.json');
    return [
      completion({ toolCalls: [{ id: 'call_read', name: 'read', arguments: { file_path: file } }] }),
      ...edits.map(([id, old_string, new_string]) => completion({ toolCalls: [{ id, name: 'edit', arguments: { file_path: file, old_string, new_string } }] })),
      completion({ text }),
    ];
  };
}

test('the editor tools are offered when the client lends its language servers, and absent when it does not', options, async () => {
  const lent = await world(() => [completion({ text: 'ok' })], {});
  await prompt(lent.server, lent.sessionId, 'hi');
  const withEditor = toolNames(lent.model.requests()[0]);
  for (const name of ['diagnostics', 'definition', 'references', 'symbols', 'hover']) assert.ok(withEditor.includes(name), `${name} offered: ${withEditor.join(', ')}`);

  const plain = await world(() => [completion({ text: 'ok' })], {}, {}, false);
  await prompt(plain.server, plain.sessionId, 'hi');
  const without = toolNames(plain.model.requests()[0]);
  assert.ok(without.includes('edit'), 'the other tools stay');
  for (const name of ['diagnostics', 'definition', 'references', 'symbols', 'hover']) assert.ok(!without.includes(name), `${name} not offered`);
  assert.deepEqual(plain.server.editor.editorRequests, [], 'nothing is asked of a client without the capability');
});

test('an edit that breaks an open JSON document carries that diagnostic for its version; the fix reports no new problems', options, async () => {
  const { server, model, workspace, sessionId } = await world(
    editsOfData(
      [
        ['call_break', '"b": 2', '"b": 2 "c": 3'],
        ['call_fix', '"b": 2 "c": 3', '"b": 2, "c": 3'],
      ],
      'Fixed.',
    ),
    { 'data.json': DATA },
  );
  const uri = pathToFileURL(path.join(workspace, 'data.json')).toString();
  server.editor.open(path.join(workspace, 'data.json'), DATA, 'json');
  const result = await prompt(server, sessionId, 'add c');
  assert.equal(result.stopReason, 'end_turn');

  const broken = toolResult(model, 'call_break');
  assert.match(broken, /Expected ',' or '}' after property value/, `the edit result names the new error:\n${broken}`);
  assert.match(broken, /data\.json:3/, 'at its line');
  const fixed = toolResult(model, 'call_fix');
  assert.match(fixed, /No new problems/, fixed);
  assert.doesNotMatch(fixed, /Expected ','/);

  // Each edit's version was asked for and answered for exactly that version.
  const asked = server.editor.editorRequests.filter((r) => r.method === 'dsh/editor/diagnostics' && r.params.version !== undefined);
  assert.deepEqual(
    asked.map((r) => [r.params.uri, r.params.version, (r.answer as Json).items[0].version, (r.answer as Json).items[0].complete]),
    [
      [uri, 2, 2, true],
      [uri, 3, 3, true],
    ],
  );
});

test('a language server that has not reported on the new version: the result says so, and the old problems are never shown as current', options, async () => {
  const broken = '{\n  "a": 1 "x": 0,\n  "b": 2\n}\n';
  const { server, model, workspace, sessionId } = await world(
    editsOfData([['call_edit', '"b": 2', '"b": 3']], 'Done.'),
    { 'data.json': broken },
    { editor: { diagnosticsTimeoutMs: 300 } },
  );
  const file = path.join(workspace, 'data.json');
  const document = server.editor.open(file, broken, 'json'); // reported on v1: the error on line 2
  const servers = server.editor.languageServers;
  const reported = new Promise<void>((resolve) => {
    const check = () => (servers.reports.some((r) => r.uri === document.uri && r.version === 1) ? resolve() : setImmediate(check));
    check();
  });
  await reported;
  servers.silent.add(document.uri); // from now on it never reports
  const result = await prompt(server, sessionId, 'bump b');
  assert.equal(result.stopReason, 'end_turn');
  const text = toolResult(model, 'call_edit');
  assert.doesNotMatch(text, /Expected ','/, `the v1 error is not reported for v2:\n${text}`);
  assert.doesNotMatch(text, /No new problems/);
  assert.match(text, /not reported|had not/i);
  const asked = server.editor.editorRequests.find((r) => r.method === 'dsh/editor/diagnostics' && r.params.version === 2);
  assert.deepEqual([(asked?.answer as Json).items[0].version, (asked?.answer as Json).items[0].complete], [null, false]);
});

test('definition: the tool answers with the location the editor’s language server gives, as a relative path and line', options, async () => {
  const lib = 'def helper():\n    return 1\n';
  const app = 'from lib import helper\n\nprint(helper())\n';
  const { server, model, workspace, sessionId } = await world(
    (ws) => [
      completion({ toolCalls: [{ id: 'call_def', name: 'definition', arguments: { path: path.join(ws, 'app.py'), line: 3, symbol: 'helper' } }] }),
      completion({ text: 'It is in lib.py.' }),
    ],
    { 'lib.py': lib, 'app.py': app },
  );
  const libUri = pathToFileURL(path.join(workspace, 'lib.py')).toString();
  server.editor.languageServers.definitions = [
    { targetUri: libUri, targetRange: { start: { line: 0, character: 0 }, end: { line: 1, character: 12 } }, targetSelectionRange: { start: { line: 0, character: 4 }, end: { line: 0, character: 10 } } },
  ];
  await prompt(server, sessionId, 'where is helper?');
  const request = server.editor.editorRequests.find((r) => r.method === 'dsh/editor/definition');
  assert.deepEqual(request?.params.position, { line: 2, character: 6 }, 'the symbol on line 3, resolved to its column by the server');
  assert.deepEqual(request?.answer, { locations: [{ uri: libUri, range: { start: { line: 0, character: 4 }, end: { line: 0, character: 10 } } }] });
  const text = toolResult(model, 'call_def');
  assert.match(text, /lib\.py:1/, text);
  assert.match(text, /def helper/);
  const card = server.updatesOf(sessionId, 'tool_call').filter((u) => (u.toolCall?.toolCallId ?? u.toolCallId) === 'call_def');
  const locations = card.flatMap((u) => (u.toolCall?.locations ?? u.locations ?? []) as Json[]);
  assert.ok(locations.some((l) => String(l.path).endsWith('lib.py') && l.line === 1), `the card carries the location: ${JSON.stringify(locations)}`);
});
