import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type Cancel,
  DiagnosticsVersions,
  editorDefinition,
  editorDiagnostics,
  editorHover,
  editorReferences,
  editorSymbols,
  type EditorHost,
  FIRST_REPORT_MS,
  NO_REPORTER_MS,
  type HostDiagnostic,
  type HostHoverPart,
  type HostLocation,
  type HostLocationLink,
  type HostSymbol,
  hoverMarkdown,
  lspSeverity,
  reduceLocation,
  uniqueLocations,
  withoutDeclarations,
} from '../../src/core/editorRequests';
import { parseEditorDiagnostics, parseEditorPosition, parseEditorSymbols } from '../../src/core/parse';
import { convertColumn, convertRange } from '../../src/core/positionEncoding';
import { CLIENT_CAPABILITY, type Position, type PositionEncoding } from '../../src/core/protocol';

const r = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

/** A schedule driven by the test: `advance(ms)` runs what fell due. */
function manualTime() {
  let now = 0;
  const timers = new Set<{ at: number; run: () => void }>();
  return {
    now: () => now,
    schedule: (ms: number, run: () => void) => {
      const timer = { at: now + ms, run };
      timers.add(timer);
      return () => void timers.delete(timer);
    },
    advance(ms: number) {
      now += ms;
      for (const timer of [...timers].sort((a, b) => a.at - b.at)) {
        if (timer.at <= now) {
          timers.delete(timer);
          timer.run();
        }
      }
    },
    pending: () => timers.size,
  };
}

/** A version clock on a `manualTime()`, with that time. */
function manualVersions() {
  const time = manualTime();
  return { time, versions: new DiagnosticsVersions(time.schedule, time.now) };
}

function cancellation(): Cancel & { cancel(): void } {
  const listeners = new Set<() => unknown>();
  let cancelled = false;
  return {
    get isCancellationRequested() {
      return cancelled;
    },
    onCancellationRequested(listener) {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
    cancel() {
      cancelled = true;
      for (const listener of listeners) listener();
    },
  };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

// ---------------------------------------------------------------------------------------------

test('the client advertises all five dsh/editor methods beside the other dsh capabilities', () => {
  assert.deepEqual(CLIENT_CAPABILITY.editor, { diagnostics: true, definition: true, references: true, symbols: true, hover: true });
  assert.equal(CLIENT_CAPABILITY.saveDocuments, true);
});

test('columns convert between UTF-16, UTF-8 and UTF-32 around multi-unit characters', () => {
  const line = 'a é 😀 x'; // é: 2 UTF-8 bytes, 1 UTF-16 unit; 😀: 4 bytes, 2 units, 1 code point
  const xUtf16 = line.indexOf('x');
  assert.equal(xUtf16, 7);
  assert.equal(convertColumn(line, xUtf16, 'utf-16', 'utf-8'), 10);
  assert.equal(convertColumn(line, xUtf16, 'utf-16', 'utf-32'), 6);
  assert.equal(convertColumn(line, 10, 'utf-8', 'utf-16'), 7);
  assert.equal(convertColumn(line, 6, 'utf-32', 'utf-16'), 7);
  assert.equal(convertColumn(line, 7, 'utf-16', 'utf-16'), 7);
  // inside a character: moved to its start; past the end: clamped
  assert.equal(convertColumn(line, 5, 'utf-16', 'utf-8'), 5, 'half of the surrogate pair → the emoji start');
  assert.equal(convertColumn(line, 3, 'utf-8', 'utf-16'), 2, 'inside é → its start');
  assert.equal(convertColumn(line, 99, 'utf-16', 'utf-8'), 11);
  assert.equal(convertColumn(line, 0, 'utf-16', 'utf-8'), 0);
  assert.deepEqual(
    convertRange(r(0, 4, 1, 1), (n) => (n === 0 ? line : undefined), 'utf-16', 'utf-8'),
    r(0, 5, 1, 1),
    'a line that cannot be read keeps its columns',
  );
});

test('severities map from VS Code numbering to LSP; LocationLinks reduce to their target selection; duplicates go', () => {
  assert.deepEqual([0, 1, 2, 3, 7].map(lspSeverity), [1, 2, 3, 4, undefined]);
  const link: HostLocationLink = { targetUri: 'file:///w/b.ts', targetRange: r(1, 0, 9, 1), targetSelectionRange: r(1, 9, 1, 12) };
  assert.deepEqual(reduceLocation(link), { uri: 'file:///w/b.ts', range: r(1, 9, 1, 12) });
  assert.deepEqual(reduceLocation({ targetUri: 'file:///w/b.ts', targetRange: r(1, 0, 9, 1) }), { uri: 'file:///w/b.ts', range: r(1, 0, 9, 1) });
  const plain: HostLocation = { uri: 'file:///w/b.ts', range: r(1, 9, 1, 12) };
  const other: HostLocation = { uri: 'file:///w/a.ts', range: r(0, 0, 0, 3) };
  assert.deepEqual(uniqueLocations([link, other, plain, other]), [plain, other], 'first occurrence kept, in order');
});

test('references without declarations drop the locations that hold a definition', () => {
  const declaration = { uri: 'file:///w/a.ts', range: r(2, 6, 2, 9) };
  const use = { uri: 'file:///w/a.ts', range: r(5, 0, 5, 3) };
  const sameRangeElsewhere = { uri: 'file:///w/b.ts', range: r(2, 6, 2, 9) };
  assert.deepEqual(withoutDeclarations([{ ...declaration }, use, sameRangeElsewhere], [declaration]), [use, sameRangeElsewhere]);
});

test('hovers become Markdown: code parts fenced, repeated parts once, blocks split by a blank line', () => {
  const hovers: HostHoverPart[][] = [[{ language: 'typescript', value: 'const x: number\n' }, 'The **count**.'], ['The **count**.', '  '], []];
  assert.equal(hoverMarkdown(hovers), '```typescript\nconst x: number\n```\n\nThe **count**.');
  assert.equal(hoverMarkdown([]), '');
});

test('parsers: diagnostics fields are optional, a version needs a uri; positions and queries are required', () => {
  assert.deepEqual(parseEditorDiagnostics(undefined), {});
  assert.deepEqual(parseEditorDiagnostics({ uri: 'file:///a', version: 3, timeoutMs: 1500 }), { uri: 'file:///a', version: 3, timeoutMs: 1500 });
  assert.deepEqual(parseEditorDiagnostics({ version: 3, timeoutMs: -1 }), {});
  assert.equal(parseEditorDiagnostics('x'), undefined);
  assert.deepEqual(parseEditorPosition({ textDocument: { uri: 'file:///a' }, position: { line: 1, character: 2 }, includeDeclaration: false }), {
    textDocument: { uri: 'file:///a' },
    position: { line: 1, character: 2 },
    includeDeclaration: false,
  });
  assert.equal(parseEditorPosition({ textDocument: { uri: 'file:///a' }, position: { line: -1, character: 0 } }), undefined);
  assert.equal(parseEditorPosition({ position: { line: 1, character: 0 } }), undefined);
  assert.deepEqual(parseEditorSymbols({ query: '' }), { query: '' });
  assert.equal(parseEditorSymbols({}), undefined);
});

// ---------------------------------------------------------------------------------------------
// The version rule

test('diagnostics count as reported on v only for a change seen after the document reached v, while at v', () => {
  const { versions } = manualVersions();
  const uri = 'file:///w/a.json';
  assert.equal(versions.reportedVersion(uri), null, 'never seen');
  versions.diagnosticsChanged(uri); // before the document is open: says nothing about any version
  versions.documentVersion(uri, 1);
  assert.equal(versions.reportedVersion(uri), null);
  versions.diagnosticsChanged(uri);
  assert.equal(versions.reportedVersion(uri), 1);
  versions.documentVersion(uri, 1); // an event without a new version (a save, dirty state) changes nothing
  assert.equal(versions.reportedVersion(uri), 1);
  versions.documentVersion(uri, 2);
  assert.equal(versions.reportedVersion(uri), null, 'the diagnostics on screen are those of v1');
  versions.diagnosticsChanged('file:///w/other.json');
  assert.equal(versions.reportedVersion(uri), null, 'another document’s change says nothing');
  versions.diagnosticsChanged(uri);
  assert.equal(versions.reportedVersion(uri), 2);
  versions.closed(uri);
  assert.equal(versions.reportedVersion(uri), null);
});

test('waitFor resolves true on the first report of v, false at the deadline, on cancellation, or once the document is past v', async () => {
  const { time, versions } = manualVersions();
  const uri = 'file:///w/a.json';
  versions.documentVersion(uri, 4);

  const reported = versions.waitFor(uri, 5, 1500); // the document has not reached 5 yet
  versions.diagnosticsChanged(uri); // a report on 4: not it
  versions.documentVersion(uri, 5);
  time.advance(100);
  versions.diagnosticsChanged(uri);
  assert.equal(await reported, true);
  assert.equal(time.pending(), 0, 'the deadline timer is cancelled');
  assert.equal(await versions.waitFor(uri, 5, 0), true, 'already reported: at once, even without a timeout');

  versions.documentVersion(uri, 6);
  const late = versions.waitFor(uri, 6, 1500);
  time.advance(1499);
  await tick();
  time.advance(1);
  assert.equal(await late, false, 'deadline');

  const cancel = cancellation();
  const cancelled = versions.waitFor(uri, 6, 1500, cancel);
  cancel.cancel();
  assert.equal(await cancelled, false);
  assert.equal(time.pending(), 0);

  const overtaken = versions.waitFor(uri, 6, 1500);
  versions.documentVersion(uri, 7); // the user typed: diagnostics of 6 can no longer be told apart
  assert.equal(await overtaken, false);
  assert.equal(await versions.waitFor(uri, 6, 1500), false, 'past v: at once');
  assert.equal(await versions.waitFor(uri, 7, 0), false, 'no report yet and no time to wait');
});

test('a document no language server has reported on since it was opened is not waited for once NO_REPORTER_MS passed', async () => {
  const { time, versions } = manualVersions();
  const plain = 'file:///w/notes.txt';
  const checked = 'file:///w/a.json';
  versions.documentVersion(plain, 1);
  versions.documentVersion(checked, 1);
  versions.diagnosticsChanged(checked);
  time.advance(NO_REPORTER_MS - 1);
  versions.documentVersion(plain, 2);
  const young = versions.waitFor(plain, 2, 1500); // open for less than NO_REPORTER_MS: a server may still be starting
  assert.equal(time.pending(), 1);
  time.advance(1);
  versions.documentVersion(plain, 3);
  assert.equal(await young, false, 'overtaken');
  assert.equal(await versions.waitFor(plain, 3, 1500), false, 'no reporter: at once');
  assert.equal(time.pending(), 0);
  versions.documentVersion(checked, 2);
  const waited = versions.waitFor(checked, 2, 1500); // it has a reporter: waited for
  assert.equal(time.pending(), 1);
  versions.diagnosticsChanged(checked);
  assert.equal(await waited, true);
  // closed and opened again: a fresh start
  versions.closed(plain);
  versions.documentVersion(plain, 1);
  const reopened = versions.waitFor(plain, 2, 1500);
  assert.equal(time.pending(), 1);
  versions.documentVersion(plain, 2);
  versions.diagnosticsChanged(plain);
  assert.equal(await reopened, true);
});

// ---------------------------------------------------------------------------------------------
// The handlers against a fake editor

interface FakeDocument {
  version: number;
  text: string;
}

function fakeHost(options: { encoding?: PositionEncoding; documents?: Record<string, FakeDocument>; onDisk?: Record<string, string> } = {}) {
  const documents = new Map(Object.entries(options.documents ?? {}));
  const diagnostics = new Map<string, HostDiagnostic[]>();
  const warnings: string[] = [];
  const calls: { method: string; uri?: string; position?: Position; query?: string }[] = [];
  const loaded: string[] = [];
  const answers = {
    definitions: [] as (HostLocation | HostLocationLink)[],
    references: [] as HostLocation[],
    symbols: [] as HostSymbol[],
    hovers: [] as HostHoverPart[][],
    fail: false,
  };
  const linesOf = (uri: string) => {
    const text = documents.get(uri)?.text ?? options.onDisk?.[uri];
    if (text === undefined) return undefined;
    const lines = text.split('\n');
    return (n: number) => lines[n];
  };
  const fail = () => {
    if (answers.fail) throw new Error('provider crashed');
  };
  /** A provider at a position: records the call, crashes when `answers.fail`, else gives `answer()`. */
  const atPosition =
    <T>(method: string, answer: () => T) =>
    async (uri: string, position: Position): Promise<T> => {
      calls.push({ method, uri, position });
      fail();
      return answer();
    };
  const host: EditorHost = {
    canonical: (uri) => {
      if (!/^[a-z]+:/.test(uri)) throw new Error('not a uri');
      return uri.replace(/%3A/gi, ':');
    },
    version: (uri) => documents.get(uri)?.version,
    load: async (uri) => {
      const text = options.onDisk?.[uri];
      if (text === undefined) throw new Error('no such file');
      loaded.push(uri);
      documents.set(uri, { version: 1, text });
      return 1;
    },
    lines: async (uri) => linesOf(uri),
    diagnostics: (uri) => diagnostics.get(uri) ?? [],
    allDiagnostics: () => [...diagnostics.entries()],
    definitions: atPosition('definitions', () => answers.definitions),
    references: atPosition('references', () => answers.references),
    workspaceSymbols: async (query) => {
      calls.push({ method: 'symbols', query });
      fail();
      return answers.symbols;
    },
    hovers: atPosition('hovers', () => answers.hovers),
    encoding: () => options.encoding ?? 'utf-16',
    warn: (message) => void warnings.push(message),
  };
  return { host, documents, diagnostics, warnings, calls, loaded, answers };
}

const error = (range = r(0, 9, 0, 10), message = 'Expected comma'): HostDiagnostic => ({ range, severity: 0, code: 514, source: 'json', message });

test('diagnostics for a version wait for its report, then answer in LSP numbering with the version', async () => {
  const { versions } = manualVersions();
  const uri = 'file:///c:/w/a.json';
  const fake = fakeHost({ documents: { [uri]: { version: 3, text: '{"a": 1 "b": 2}' } } });
  versions.documentVersion(uri, 3);
  fake.diagnostics.set(uri, [error()]);
  const answer = editorDiagnostics({ uri: 'file:///c%3A/w/a.json', version: 3, timeoutMs: 1500 }, { host: fake.host, versions });
  await tick();
  versions.diagnosticsChanged(uri);
  assert.deepEqual(await answer, {
    items: [{ uri: 'file:///c%3A/w/a.json', version: 3, complete: true, diagnostics: [{ range: r(0, 9, 0, 10), severity: 1, code: 514, source: 'json', message: 'Expected comma' }] }],
  });
});

test('diagnostics not reported in time: complete false and version null, so the server never takes them as current', async () => {
  const { time, versions } = manualVersions();
  const uri = 'file:///w/a.json';
  const fake = fakeHost({ documents: { [uri]: { version: 3, text: '{}' } } });
  versions.documentVersion(uri, 2);
  versions.diagnosticsChanged(uri); // reported on 2
  versions.documentVersion(uri, 3);
  fake.diagnostics.set(uri, [error()]); // still the diagnostics of v2
  const answer = editorDiagnostics({ uri, version: 3, timeoutMs: 1500 }, { host: fake.host, versions });
  await tick();
  time.advance(1500);
  assert.deepEqual(await answer, { items: [{ uri, version: null, complete: false, diagnostics: [{ range: r(0, 9, 0, 10), severity: 1, code: 514, source: 'json', message: 'Expected comma' }] }] });
  // without a version: at once, with whatever version is known
  assert.deepEqual((await editorDiagnostics({ uri }, { host: fake.host, versions })).items[0]?.version, null);
});

test('diagnostics of a document moved past the asked version carry the newer version (or null), never the asked one', async () => {
  const { time, versions } = manualVersions();
  const uri = 'file:///w/a.json';
  const fake = fakeHost({ documents: { [uri]: { version: 5, text: '{}' } } });
  versions.documentVersion(uri, 5);
  versions.diagnosticsChanged(uri);
  const result = await editorDiagnostics({ uri, version: 4, timeoutMs: 1500 }, { host: fake.host, versions });
  assert.deepEqual(result.items[0], { uri, version: 5, complete: false, diagnostics: [] });
  assert.equal(time.pending(), 0, 'nothing to wait for');
});

test('diagnostics in UTF-8: ranges converted with the document text; the whole-workspace form lists every document', async () => {
  const { versions } = manualVersions();
  const a = 'file:///w/a.json';
  const b = 'file:///w/b.ts';
  const fake = fakeHost({ encoding: 'utf-8', documents: { [a]: { version: 1, text: '{"é": 1 x}' }, [b]: { version: 2, text: 'let y' } } });
  versions.documentVersion(a, 1);
  versions.diagnosticsChanged(a);
  fake.diagnostics.set(a, [{ range: r(0, 8, 0, 9), severity: 1, message: 'Unexpected x', source: '' }]);
  fake.diagnostics.set(b, [{ range: r(0, 4, 0, 5), severity: 3, message: 'unused', code: '' }]);
  fake.diagnostics.set('file:///w/clean.ts', []);
  const result = await editorDiagnostics(undefined, { host: fake.host, versions });
  assert.deepEqual(result, {
    items: [
      { uri: a, version: 1, complete: true, diagnostics: [{ range: r(0, 9, 0, 10), severity: 2, message: 'Unexpected x' }] },
      { uri: b, version: null, complete: true, diagnostics: [{ range: r(0, 4, 0, 5), severity: 4, message: 'unused' }] },
    ],
  });
});

test('diagnostics of a document that is not open: it is loaded and its first report awaited; one that cannot be loaded answers empty', async () => {
  const { time, versions } = manualVersions();
  const uri = 'file:///w/closed.json';
  const fake = fakeHost({ onDisk: { [uri]: '{,}' } });
  const answer = editorDiagnostics({ uri, timeoutMs: 1000 }, { host: fake.host, versions });
  await tick();
  assert.deepEqual(fake.loaded, [uri]);
  fake.diagnostics.set(uri, [error(r(0, 1, 0, 2), 'Property expected')]);
  versions.diagnosticsChanged(uri);
  const result = await answer;
  assert.equal(result.items[0]?.version, 1);
  assert.equal(result.items[0]?.complete, true);
  assert.equal(result.items[0]?.diagnostics[0]?.message, 'Property expected');

  // without a timeout the first report is awaited for FIRST_REPORT_MS: never "no problems" for a file just opened
  const other = 'file:///w/other.json';
  const quiet = fakeHost({ onDisk: { [other]: '{}' } });
  const unanswered = editorDiagnostics({ uri: other }, { host: quiet.host, versions });
  await tick();
  assert.equal(time.pending(), 1);
  time.advance(FIRST_REPORT_MS);
  assert.deepEqual(await unanswered, { items: [{ uri: other, version: null, complete: false, diagnostics: [] }] });

  const missing = await editorDiagnostics({ uri: 'file:///w/missing.json', timeoutMs: 1000 }, { host: fake.host, versions });
  assert.deepEqual(missing, { items: [{ uri: 'file:///w/missing.json', version: null, complete: false, diagnostics: [] }] });
  assert.match(fake.warnings.join('\n'), /cannot open file:\/\/\/w\/missing\.json: no such file/);
  assert.deepEqual(await editorDiagnostics({ uri: 'no uri' }, { host: fake.host, versions }), { items: [] });
  assert.deepEqual(await editorDiagnostics([1], { host: fake.host, versions }), { items: [] });
});

test('definition: the position is converted to UTF-16 for the editor, links reduced, the asked document in the server spelling', async () => {
  const { versions } = manualVersions();
  const asked = 'file:///c:/w/a.ts';
  const other = 'file:///c:/w/b.ts';
  const fake = fakeHost({ encoding: 'utf-32', documents: { [asked]: { version: 1, text: 'const 😀 = f😀o;' } }, onDisk: { [other]: 'export const 😀x = 1;' } });
  fake.answers.definitions = [
    { targetUri: other, targetRange: r(0, 0, 0, 21), targetSelectionRange: r(0, 15, 0, 16) },
    { uri: asked, range: r(0, 6, 0, 8) },
    { uri: other, range: r(0, 15, 0, 16) },
  ];
  const result = await editorDefinition({ textDocument: { uri: 'file:///c%3A/w/a.ts' }, position: { line: 0, character: 12 } }, { host: fake.host, versions });
  assert.deepEqual(fake.calls[0], { method: 'definitions', uri: asked, position: { line: 0, character: 14 } }, 'UTF-32 12 → UTF-16 14 (two emoji before)');
  assert.deepEqual(result, {
    locations: [
      { uri: other, range: r(0, 14, 0, 15) },
      { uri: 'file:///c%3A/w/a.ts', range: r(0, 6, 0, 7) },
    ],
  });
});

test('definition of a document not open loads it; a failing provider answers empty with a log line', async () => {
  const { versions } = manualVersions();
  const uri = 'file:///w/lib.ts';
  const fake = fakeHost({ onDisk: { [uri]: 'export function f() {}' } });
  fake.answers.fail = true;
  assert.deepEqual(await editorDefinition({ textDocument: { uri }, position: { line: 0, character: 16 } }, { host: fake.host, versions }), { locations: [] });
  assert.deepEqual(fake.loaded, [uri]);
  assert.match(fake.warnings.join('\n'), /dsh\/editor\/definition: the language servers failed: provider crashed/);
  assert.deepEqual(await editorDefinition({ textDocument: { uri: 'file:///w/nope.ts' }, position: { line: 0, character: 0 } }, { host: fake.host, versions }), { locations: [] });
  assert.deepEqual(await editorDefinition({ position: { line: 0, character: 0 } }, { host: fake.host, versions }), { locations: [] });
});

test('references: duplicates dropped, the declaration left out when includeDeclaration is false', async () => {
  const { versions } = manualVersions();
  const uri = 'file:///w/a.ts';
  const fake = fakeHost({ documents: { [uri]: { version: 1, text: 'let n = 1;\nn++;\n' } } });
  const declaration = { uri, range: r(0, 4, 0, 5) };
  const use = { uri, range: r(1, 0, 1, 1) };
  fake.answers.references = [declaration, use, { ...use }];
  fake.answers.definitions = [{ targetUri: uri, targetRange: r(0, 0, 0, 10), targetSelectionRange: r(0, 4, 0, 5) }];
  const params = { textDocument: { uri }, position: { line: 1, character: 0 } };
  assert.deepEqual(await editorReferences(params, { host: fake.host, versions }), { locations: [declaration, use] });
  assert.deepEqual(await editorReferences({ ...params, includeDeclaration: false }, { host: fake.host, versions }), { locations: [use] });
});

test('symbols: LSP kind numbers, duplicates dropped, a container only when given, a range only when known', async () => {
  const { versions } = manualVersions();
  const fake = fakeHost({});
  fake.answers.symbols = [
    { name: 'SessionStore', kind: 4, uri: 'file:///w/store.py', range: r(9, 6, 9, 18) },
    { name: 'SessionStore', kind: 4, uri: 'file:///w/store.py', range: r(9, 6, 9, 18) },
    { name: 'load', kind: 5, containerName: 'SessionStore', uri: 'file:///w/store.py' },
  ];
  assert.deepEqual(await editorSymbols({ query: 'Session' }, { host: fake.host, versions }), {
    symbols: [
      { name: 'SessionStore', kind: 5, location: { uri: 'file:///w/store.py', range: r(9, 6, 9, 18) } },
      { name: 'load', kind: 6, containerName: 'SessionStore', location: { uri: 'file:///w/store.py' } },
    ],
  });
  assert.deepEqual(fake.calls.at(-1), { method: 'symbols', query: 'Session' });
  assert.deepEqual(await editorSymbols({ q: 1 }, { host: fake.host, versions }), { symbols: [] });
});

test('hover: the hovers of every provider as one Markdown text, "" when none', async () => {
  const { versions } = manualVersions();
  const uri = 'file:///w/a.ts';
  const fake = fakeHost({ documents: { [uri]: { version: 1, text: 'let n = 1;' } } });
  const params = { textDocument: { uri }, position: { line: 0, character: 4 } };
  assert.deepEqual(await editorHover(params, { host: fake.host, versions }), { contents: '' });
  fake.answers.hovers = [[{ language: 'typescript', value: 'let n: number' }], ['From *a.ts*']];
  assert.deepEqual(await editorHover(params, { host: fake.host, versions }), { contents: '```typescript\nlet n: number\n```\n\nFrom *a.ts*' });
});
