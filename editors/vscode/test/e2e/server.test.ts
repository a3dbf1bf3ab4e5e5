/**
 * End to end against the real server (`.venv/bin/dsh-lsp --stdio`) and the scripted model:
 * streaming, approval, a versioned edit of a dirty buffer, saving the agent's edits after the
 * turn (`dsh.edits.saveAfterTurn`), a stale edit, rejection, both cancellation paths, resume
 * from a new server process, and the error answers the chat view relies on. Edits are expected through `workspace/applyEdit` (the editor-edits contract).
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { CancellationTokenSource, ResponseError } from 'vscode-jsonrpc';
import type { TextDocumentEdit } from 'vscode-languageserver-protocol';
import { completion, DshServer, type ScriptedModel, skipWithoutServer as skip, type World, worlds } from './harness';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- assertions index decoded JSON

const made = worlds('dsh-e2e-');

/** A workspace with `files`, a scripted model answering `responses` (given the workspace path, since tool arguments carry absolute paths) and a server. */
const world = (responses: Json[] | ((workspace: string) => Json[]), settings: Json = {}, files: Record<string, string> = {}): Promise<World> => made.make({ responses, settings, files });

async function newSession(server: DshServer, cwd?: string): Promise<string> {
  const result = await server.request<{ sessionId: string }>('dsh/session/new', cwd ? { cwd } : {});
  assert.equal(typeof result.sessionId, 'string');
  return result.sessionId;
}

const text = (t: string) => [{ type: 'text', text: t }];

/** The text of the tool results the model received in request `index`. */
function toolResults(model: ScriptedModel, index: number): string {
  const request = model.requests()[index];
  const messages = (request?.messages ?? []) as Json[];
  return messages
    .filter((m) => m.role === 'tool')
    .map((m) => String(m.content))
    .join('\n');
}

/**
 * Tests of edits through the editor (versioned `workspace/applyEdit`, reads of unsaved
 * buffers). `DSH_EDITOR_EDITS=pending` reports them as todo while the server writes files
 * directly; they run and assert either way.
 */
const editorEdits = { skip, todo: process.env.DSH_EDITOR_EDITS === 'pending' ? 'edits through the editor are not served yet' : false };

test('streaming: chunks concatenate to the model text; the turn reports state, usage and end_turn', { skip }, async () => {
  const answer = 'Streaming works. '.repeat(40);
  const { server } = await world([completion({ reasoning: 'Let me think about it.', text: answer, pieceSize: 3 })]);
  const sessionId = await newSession(server);
  const result = await server.request<Json>('dsh/prompt', { sessionId, prompt: text('say something') });
  assert.equal(result.stopReason, 'end_turn');
  assert.equal(result.usage?.outputTokens, 10);
  assert.equal(server.textOf(sessionId), answer);
  assert.equal(server.textOf(sessionId, 'agent_thought_chunk'), 'Let me think about it.');
  const states = server.updatesOf(sessionId, 'state_update').map((u) => u.state);
  assert.equal(states[0], 'running');
  assert.equal(states[states.length - 1], 'idle');
  assert.deepEqual(server.updatesOf(sessionId, 'user_message')[0]?.content, text('say something'));
  assert.ok(server.updatesOf(sessionId, 'usage_update').length >= 1);
});

test('approval, then a versioned minimal edit applied to a dirty buffer through the editor', editorEdits, async () => {
  const onDisk = 'x = 1\ny = 2\n';
  const files = { 'app.py': onDisk };
  const { server, model, workspace } = await world(
    (ws) => [
      completion({ toolCalls: [{ id: 'call_read', name: 'read', arguments: { file_path: path.join(ws, 'app.py') } }] }),
      completion({ toolCalls: [{ id: 'call_edit', name: 'edit', arguments: { file_path: path.join(ws, 'app.py'), old_string: 'y = 2', new_string: 'y = 20' } }] }),
      completion({ text: 'Done.' }),
    ],
    { permissions: { edit: 'ask' } },
    files,
  );
  const file = path.join(workspace, 'app.py');
  const document = server.editor.open(file, onDisk);
  server.editor.type(document.uri, 'y = 2\n', 'y = 2\nz = 3\n'); // unsaved: only the editor has z = 3
  const sessionId = await newSession(server);

  const permission = server.nextPermission();
  const turn = server.request<Json>('dsh/prompt', { sessionId, prompt: text('bump y') });
  const asked = await permission;
  assert.equal(asked.sessionId, sessionId);
  assert.equal(asked.toolCall.kind, 'edit');
  assert.deepEqual(
    (asked.options as Json[]).map((o) => o.kind),
    ['allow_once', 'allow_always', 'reject_once', 'reject_always'],
  );
  assert.ok((asked.toolCall.content as Json[]).some((c) => c.type === 'diff' && c.newText.includes('y = 20')), 'the card carries the diff');
  const result = await turn;
  assert.equal(result.stopReason, 'end_turn');

  assert.match(toolResults(model, 1), /z = 3/, 'the read saw the unsaved buffer');
  assert.equal(server.editor.applyEdits.length, 1, 'the edit went through workspace/applyEdit');
  const edit = server.editor.applyEdits[0]?.edit.documentChanges?.[0] as TextDocumentEdit;
  assert.equal(edit.textDocument.uri, document.uri);
  assert.equal(edit.textDocument.version, 2, 'versioned against the dirty buffer');
  const replaced = edit.edits.map((e) => ('newText' in e ? e.newText : '')).join('');
  assert.ok(replaced.length < 10, `minimal hunk, not a whole-document replacement: ${JSON.stringify(edit.edits)}`);
  assert.equal(server.editor.documents.get(document.uri)?.text, 'x = 1\ny = 20\nz = 3\n');
  assert.equal(readFileSync(file, 'utf8'), onDisk, 'nothing was written behind the editor');
  const card = server.updatesOf(sessionId, 'tool_call').map((u) => u.toolCall).filter((c) => c.toolCallId === 'call_edit');
  assert.equal(card[card.length - 1]?.status, 'completed');
});

test('saveAfterTurn: the server asks the editor to save the edited document after the turn, and it lands on disk', editorEdits, async () => {
  const onDisk = 'n = 1\n';
  const { server, workspace } = await world(
    (ws) => [
      completion({ toolCalls: [{ id: 'call_read', name: 'read', arguments: { file_path: path.join(ws, 'n.py') } }] }),
      completion({ toolCalls: [{ id: 'call_edit', name: 'edit', arguments: { file_path: path.join(ws, 'n.py'), old_string: 'n = 1', new_string: 'n = 2' } }] }),
      completion({ text: 'Saved.' }),
    ],
    { edits: { saveAfterTurn: true } },
    { 'n.py': onDisk },
  );
  const file = path.join(workspace, 'n.py');
  const document = server.editor.open(file, onDisk);
  const sessionId = await newSession(server);
  const saving = server.editor.nextSave();
  const result = await server.request<Json>('dsh/prompt', { sessionId, prompt: text('bump n') });
  assert.equal(result.stopReason, 'end_turn');
  const request = await saving;
  assert.deepEqual(request, { uris: [document.uri], saved: [document.uri] });
  assert.equal(server.editor.documents.get(document.uri)?.text, 'n = 2\n');
  assert.equal(readFileSync(file, 'utf8'), 'n = 2\n', 'the edit is on disk after the turn');
  assert.equal(server.editor.applyEdits.length, 1, 'the edit itself still went through the editor');
});

test('a stale edit is refused by the editor, the model sees FS_STALE_VERSION, the user keeps their text', editorEdits, async () => {
  const onDisk = 'a = 1\nb = 2\n';
  const { server, model, workspace } = await world(
    (ws) => [
      completion({ toolCalls: [{ id: 'call_read', name: 'read', arguments: { file_path: path.join(ws, 'mod.py') } }] }),
      completion({ toolCalls: [{ id: 'call_edit', name: 'edit', arguments: { file_path: path.join(ws, 'mod.py'), old_string: 'b = 2', new_string: 'b = 3' } }] }),
      completion({ text: 'The file changed; I will re-read it.' }),
    ],
    {},
    { 'mod.py': onDisk },
  );
  const file = path.join(workspace, 'mod.py');
  const document = server.editor.open(file, onDisk);
  let typed = false;
  server.editor.onApplyEdit = () => {
    if (typed) return;
    typed = true;
    server.editor.type(document.uri, 'a = 1', 'a = 100'); // the user types before the edit lands
  };
  const sessionId = await newSession(server);
  const result = await server.request<Json>('dsh/prompt', { sessionId, prompt: text('change b') });
  assert.equal(result.stopReason, 'end_turn');
  assert.equal(server.editor.applyEdits.length, 1, 'the edit was attempted through the editor');
  assert.equal(server.editor.documents.get(document.uri)?.text, 'a = 100\nb = 2\n', 'no keystroke lost, stale edit not applied');
  assert.match(toolResults(model, 2), /FS_STALE_VERSION|stale|changed/i);
  const card = server.updatesOf(sessionId, 'tool_call').map((u) => u.toolCall).filter((c) => c.toolCallId === 'call_edit');
  assert.equal(card[card.length - 1]?.status, 'failed');
});

test('a rejected approval leaves buffer and disk alone and fails the tool call', { skip }, async () => {
  const onDisk = 'k = 1\n';
  const { server, workspace } = await world(
    (ws) => [
      completion({ toolCalls: [{ id: 'call_read', name: 'read', arguments: { file_path: path.join(ws, 'k.py') } }] }),
      completion({ toolCalls: [{ id: 'call_edit', name: 'edit', arguments: { file_path: path.join(ws, 'k.py'), old_string: 'k = 1', new_string: 'k = 2' } }] }),
      completion({ text: 'Understood, leaving it.' }),
    ],
    { permissions: { edit: 'ask' } },
    { 'k.py': onDisk },
  );
  const file = path.join(workspace, 'k.py');
  const document = server.editor.open(file, onDisk);
  server.answerPermission = () => ({ outcome: { outcome: 'selected', optionId: 'reject_once' } });
  const sessionId = await newSession(server);
  const result = await server.request<Json>('dsh/prompt', { sessionId, prompt: text('change k') });
  assert.equal(result.stopReason, 'end_turn');
  assert.equal(server.permissionRequests.length, 1);
  assert.equal(server.editor.applyEdits.length, 0);
  assert.equal(server.editor.documents.get(document.uri)?.text, onDisk);
  assert.equal(readFileSync(file, 'utf8'), onDisk);
  const card = server.updatesOf(sessionId, 'tool_call').map((u) => u.toolCall).filter((c) => c.toolCallId === 'call_edit');
  assert.ok(['failed', 'cancelled'].includes(card[card.length - 1]?.status), JSON.stringify(card));
});

test('dsh/cancel stops a streaming turn with stopReason cancelled, and the session takes the next prompt', { skip }, async () => {
  const { server } = await world([completion({ text: 'This answer never ends '.repeat(5), stall: true }), completion({ text: 'Back again.' })]);
  const sessionId = await newSession(server);
  const turn = server.request<Json>('dsh/prompt', { sessionId, prompt: text('talk forever') });
  await server.waitForUpdate((u) => u.sessionId === sessionId && u.update.kind === 'agent_message_chunk');
  await server.connection.sendNotification('dsh/cancel', { sessionId });
  const result = await turn;
  assert.equal(result.stopReason, 'cancelled');
  const next = await server.request<Json>('dsh/prompt', { sessionId, prompt: text('again') });
  assert.equal(next.stopReason, 'end_turn');
  assert.match(server.textOf(sessionId), /Back again\.$/);
});

test('$/cancelRequest on dsh/prompt ends the turn as cancelled (result or -32800)', { skip }, async () => {
  const { server } = await world([completion({ text: 'Endless. '.repeat(5), stall: true }), completion({ text: 'Fine.' })]);
  const sessionId = await newSession(server);
  const source = new CancellationTokenSource();
  const turn = server.request<Json>('dsh/prompt', { sessionId, prompt: text('go') }, source.token);
  await server.waitForUpdate((u) => u.sessionId === sessionId && u.update.kind === 'agent_message_chunk');
  source.cancel();
  try {
    const result = await turn;
    assert.equal(result.stopReason, 'cancelled');
  } catch (error) {
    assert.ok(error instanceof ResponseError, String(error));
    assert.equal(error.code, -32800);
  }
  const next = await server.request<Json>('dsh/prompt', { sessionId, prompt: text('next') });
  assert.equal(next.stopReason, 'end_turn');
});

test('cancelling while an approval is pending withdraws the request and ends the turn', { skip }, async () => {
  const { server, workspace } = await world(
    (ws) => [
      completion({ toolCalls: [{ id: 'call_read', name: 'read', arguments: { file_path: path.join(ws, 'c.py') } }] }),
      completion({ toolCalls: [{ id: 'call_edit', name: 'edit', arguments: { file_path: path.join(ws, 'c.py'), old_string: 'c = 1', new_string: 'c = 2' } }] }),
    ],
    { permissions: { edit: 'ask' } },
    { 'c.py': 'c = 1\n' },
  );
  const file = path.join(workspace, 'c.py');
  server.editor.open(file, 'c = 1\n');
  let withdrawn = false;
  server.answerPermission = (_params, token) =>
    new Promise((resolve) => {
      token.onCancellationRequested(() => {
        withdrawn = true;
        resolve({ outcome: { outcome: 'cancelled' } });
      });
    });
  const sessionId = await newSession(server);
  const permission = server.nextPermission();
  const turn = server.request<Json>('dsh/prompt', { sessionId, prompt: text('edit c') });
  await permission;
  await server.connection.sendNotification('dsh/cancel', { sessionId });
  const result = await turn;
  assert.equal(result.stopReason, 'cancelled');
  assert.ok(withdrawn, 'the server cancelled its dsh/requestPermission');
  assert.equal(server.editor.applyEdits.length, 0);
});

test('resume from a new server process replays the history, then the session continues', { skip }, async () => {
  const first = await world([completion({ text: 'First answer.' }), completion({ text: 'Second answer.' })]);
  const sessionId = await newSession(first.server);
  await first.server.request('dsh/prompt', { sessionId, prompt: text('first question') });
  assert.equal(await first.server.stop(), 0);

  const server = await DshServer.start({ workspace: first.workspace, stateDir: first.stateDir, model: first.model });
  made.onCleanup(() => (server.proc.exitCode === null ? server.stop() : undefined));
  const list = await server.request<Json>('dsh/session/list', {});
  const listed = (list.sessions as Json[]).find((s) => s.sessionId === sessionId);
  assert.ok(listed, `listed: ${JSON.stringify(list)}`);
  assert.equal(listed.cwd, first.workspace);
  assert.ok(Number.isFinite(new Date(listed.createdAt).getTime()), `createdAt ${listed.createdAt}`);

  const resumed = await server.request<Json>('dsh/session/resume', { sessionId });
  assert.equal(resumed.sessionId, sessionId);
  // Replay arrived before the answer: the history is already here.
  assert.deepEqual(server.updatesOf(sessionId, 'user_message')[0]?.content, text('first question'));
  assert.equal(server.textOf(sessionId), 'First answer.');

  const next = await server.request<Json>('dsh/prompt', { sessionId, prompt: text('second question') });
  assert.equal(next.stopReason, 'end_turn');
  assert.equal(server.textOf(sessionId), 'First answer.Second answer.');
  const lastRequest = first.model.requests().at(-1) as Json;
  const userTexts = (lastRequest.messages as Json[]).filter((m) => m.role === 'user').map((m) => String(m.content));
  assert.ok(userTexts.some((t) => t.includes('first question')), 'the resumed model request carries the history');
});

test('the error answers the chat view shows: unknown session, a second prompt while running, a failing model', { skip }, async () => {
  const { server } = await world([completion({ text: 'slow '.repeat(3), stall: true }), { status: 401, body: JSON.stringify({ error: { message: 'bad key', type: 'auth' } }), headers: {} }]);
  await assert.rejects(server.request('dsh/session/resume', { sessionId: 'no-such-session' }), (error: unknown) => {
    assert.ok(error instanceof ResponseError);
    assert.equal(error.code, -32602);
    assert.match(error.message, /unknown/i);
    return true;
  });
  const sessionId = await newSession(server);
  const turn = server.request<Json>('dsh/prompt', { sessionId, prompt: text('one') });
  await server.waitForUpdate((u) => u.sessionId === sessionId && u.update.kind === 'agent_message_chunk');
  await assert.rejects(server.request('dsh/prompt', { sessionId, prompt: text('two') }), ResponseError);
  await server.connection.sendNotification('dsh/cancel', { sessionId });
  assert.equal((await turn).stopReason, 'cancelled');
  await assert.rejects(server.request('dsh/prompt', { sessionId, prompt: text('three') }), (error: unknown) => {
    assert.ok(error instanceof ResponseError);
    assert.equal((error.data as Json)?.code, 'AUTH');
    return true;
  });
});

test('a resource_link attachment reaches the model with the unsaved buffer text of its range', { skip }, async () => {
  const { server, model, workspace } = await world([completion({ text: 'It is a constant.' })], {}, { 'notes.py': 'alpha = 1\nbeta = 2\n' });
  const document = server.editor.open(path.join(workspace, 'notes.py'), 'alpha = 1\nbeta = 2\n');
  server.editor.type(document.uri, 'beta = 2', 'beta = "unsaved"');
  const sessionId = await newSession(server);
  const range = { start: { line: 1, character: 0 }, end: { line: 1, character: 16 } };
  const result = await server.request<Json>('dsh/prompt', {
    sessionId,
    prompt: [...text('explain this'), { type: 'resource_link', uri: document.uri, range }],
  });
  assert.equal(result.stopReason, 'end_turn');
  const user = ((model.requests()[0]?.messages ?? []) as Json[]).filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content)).join('\n');
  assert.match(user, /explain this/);
  assert.match(user, /beta = \\"unsaved\\"/, 'the attachment was read from the editor buffer');
});
