import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSaveDocuments } from '../../src/core/parse';
import { type SavableDocument, type SaveDeps, saveDocuments } from '../../src/core/saveDocuments';

interface FakeDocument extends SavableDocument {
  saves: number;
}

function doc(uri: string, outcome: boolean | Error = true, extra: Partial<SavableDocument> = {}): FakeDocument {
  const document: FakeDocument = {
    uri,
    isUntitled: false,
    isClosed: false,
    saves: 0,
    save: async () => {
      document.saves += 1;
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
    ...extra,
  };
  return document;
}

/** Lower-cases `%3A`-style escapes and decodes `%3A` → `:` the way the editor spells a drive letter. */
const canonical = (uri: string): string => {
  if (!/^[a-z][\w+.-]*:/i.test(uri)) throw new Error(`no scheme: ${uri}`);
  return uri.replace(/%3A/gi, ':');
};

function deps(documents: SavableDocument[]): SaveDeps & { warnings: string[] } {
  const warnings: string[] = [];
  return { documents: () => documents, canonical, warn: (m) => void warnings.push(m), warnings };
}

test('parseSaveDocuments keeps string uris and rejects anything without a uris list', () => {
  assert.deepEqual(parseSaveDocuments({ uris: ['file:///a', 3, null, 'file:///b'] }), { uris: ['file:///a', 'file:///b'] });
  assert.equal(parseSaveDocuments({ uris: 'file:///a' }), undefined);
  assert.equal(parseSaveDocuments(null), undefined);
  assert.equal(parseSaveDocuments([]), undefined);
});

test('each listed open document is saved once; the answer names the saved uris in request order', async () => {
  const a = doc('file:///w/a.py');
  const b = doc('file:///w/b.py');
  const other = doc('file:///w/other.py');
  const d = deps([b, a, other]);
  const result = await saveDocuments({ uris: ['file:///w/a.py', 'file:///w/b.py', 'file:///w/a.py'] }, d);
  assert.deepEqual(result, { saved: ['file:///w/a.py', 'file:///w/b.py'] });
  assert.deepEqual([a.saves, b.saves, other.saves], [1, 1, 0]);
  assert.deepEqual(d.warnings, []);
});

test('the server spelling of a uri is matched canonically and answered as the server spelled it', async () => {
  const a = doc('file:///c:/w/a.py');
  const result = await saveDocuments({ uris: ['file:///c%3A/w/a.py'] }, deps([a]));
  assert.deepEqual(result, { saved: ['file:///c%3A/w/a.py'] });
  assert.equal(a.saves, 1);
});

test('not open, closed, untitled, refused and failing saves are left out; the rest still save', async () => {
  const refused = doc('file:///w/refused.py', false);
  const failing = doc('file:///w/failing.py', new Error('disk full'));
  const closed = doc('file:///w/closed.py', true, { isClosed: true });
  const untitled = doc('untitled:Untitled-1', true, { isUntitled: true });
  const good = doc('file:///w/good.py');
  const d = deps([refused, failing, closed, untitled, good]);
  const uris = ['file:///w/missing.py', 'file:///w/refused.py', 'file:///w/failing.py', 'file:///w/closed.py', 'untitled:Untitled-1', 'not a uri', 'file:///w/good.py'];
  const result = await saveDocuments({ uris }, d);
  assert.deepEqual(result, { saved: ['file:///w/good.py'] });
  assert.deepEqual([refused.saves, failing.saves, closed.saves, untitled.saves, good.saves], [1, 1, 0, 0, 1]);
  assert.deepEqual(d.warnings, ['dsh: could not save file:///w/refused.py', 'dsh: could not save file:///w/failing.py: disk full', 'dsh: dsh/saveDocuments: not a uri: not a uri']);
});

test('malformed params save nothing and answer an empty list', async () => {
  const a = doc('file:///w/a.py');
  const d = deps([a]);
  assert.deepEqual(await saveDocuments({ uri: 'file:///w/a.py' }, d), { saved: [] });
  assert.equal(a.saves, 0);
  assert.equal(d.warnings.length, 1);
});
