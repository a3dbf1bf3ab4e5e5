/**
 * End to end against the real server and the scripted model, through the chat's own code:
 * the server's `instructions_update` and `compaction_update` reduced by the view model into
 * the rows the chat shows, and a shell question answered by `Approvals` with an edited
 * "always allow" prefix that the server then remembers and applies.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Approvals } from '../../src/approvals';
import { compactionText, instructionsText } from '../../src/core/notices';
import { parseUpdate } from '../../src/core/parse';
import { type ChatEvent, EMPTY_STATE, reduceAll } from '../../src/core/viewModel';
import { completion, DshServer, skipWithoutServer as skip, worlds } from './harness';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- assertions index decoded JSON

const made = worlds('dsh-e2e-notices-');
const world = (responses: Json[], settings: Json, files: Record<string, string>) => made.make({ responses, settings, files });

const text = (t: string) => [{ type: 'text', text: t }];

/** The chat state the view model builds from every update the server sent for `sessionId`. */
function chat(server: DshServer, sessionId: string) {
  const events: ChatEvent[] = server.updatesOf(sessionId).flatMap((raw) => {
    const update = parseUpdate(raw);
    return update === undefined ? [] : [{ type: 'update' as const, update }];
  });
  return reduceAll(EMPTY_STATE, events).state;
}

test('the chat shows the project instructions and a compaction with its tokens before → after', { skip }, async () => {
  const usage = { prompt_tokens: 5000, completion_tokens: 100, total_tokens: 5100 };
  const { server } = await world(
    [
      completion({ text: 'first '.repeat(200), usage }),
      completion({ text: 'second '.repeat(200), usage }),
      completion({ text: 'third', usage }),
      completion({ text: 'CHECKPOINT: the user is testing compaction' }),
    ],
    {},
    { 'AGENTS.md': '# Rules\nRun the tests before you answer.\n' },
  );
  const { sessionId } = await server.request<{ sessionId: string }>('dsh/session/new', {});
  for (const prompt of ['one', 'two', 'three']) await server.request('dsh/prompt', { sessionId, prompt: text(prompt) });
  const result = await server.request<Json>('dsh/session/compact', { sessionId });
  const state = chat(server, sessionId);
  const notes = state.items.flatMap((item) => (item.type === 'instructions' ? [instructionsText(item.sources)] : []));
  assert.deepEqual(notes, ['Instructions: AGENTS.md']);
  const rows = state.items.flatMap((item) => (item.type === 'compaction' ? [item.compaction] : []));
  assert.equal(rows.length, 1, JSON.stringify(rows));
  const row = rows[0];
  assert.ok(row !== undefined);
  assert.equal(row.state, 'completed');
  assert.equal(row.tokensBefore, result.tokensBefore);
  assert.equal(row.tokensAfter, result.tokensAfter);
  assert.match(compactionText(row), /^Compacted the conversation: ~[\d.]+k? → ~[\d.]+k? tokens$/);
});

test('"always allow" with an edited prefix: the server remembers it and the next command runs unasked', { skip }, async () => {
  const bash = (id: string, command: string) => completion({ toolCalls: [{ id, name: 'bash', arguments: { command, description: 'Say something' } }] });
  const { workspace, server } = await world(
    [bash('b1', 'echo hello world'), completion({ text: 'Said it.' }), bash('b2', 'echo again'), completion({ text: 'Again.' })],
    { permissions: { shell: 'ask' } },
    {},
  );
  const applied: ChatEvent[] = [];
  const sessions = { apply: (_id: string, events: ChatEvent[]) => applied.push(...events) };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- only the members Approvals uses
  const approvals = new Approvals(sessions as any, { warn: () => undefined } as any, () => undefined);
  server.answerPermission = (params, token) => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the jsonrpc token serves as the CancellationToken
    const answer = approvals.handle(params, token as any);
    const card = applied.find((event) => event.type === 'permissionRequested');
    assert.ok(card?.type === 'permissionRequested');
    assert.equal(card.prefix, 'echo hello', 'the question offers the prefix');
    approvals.answer(card.requestId, 'allow_always', ' echo ');
    return answer as unknown as Json;
  };
  const { sessionId } = await server.request<{ sessionId: string }>('dsh/session/new', {});
  await server.request('dsh/prompt', { sessionId, prompt: text('say hello') });
  assert.equal(server.permissionRequests.length, 1);
  const prefixes = await server.request<Json>('dsh/shell/allowedPrefixes', { cwd: workspace });
  assert.deepEqual(prefixes.prefixes, [{ prefix: 'echo', source: 'remembered' }]);
  await server.request('dsh/prompt', { sessionId, prompt: text('say it again') });
  assert.equal(server.permissionRequests.length, 1, 'the edited prefix `echo` covers `echo again`');
  const outputs = server
    .updatesOf(sessionId, 'tool_call')
    .filter((u) => u.toolCall?.status === 'completed')
    .map((u) => u.toolCall?.toolCallId);
  assert.deepEqual(outputs, ['b1', 'b2']);
  const { state } = reduceAll(EMPTY_STATE, applied);
  const answered = state.items[0];
  assert.ok(answered?.type === 'permission');
  assert.equal(answered.answeredPrefix, 'echo');
});
