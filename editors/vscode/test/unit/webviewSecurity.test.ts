import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { chatHtml, contentSecurityPolicy, makeNonce } from '../../src/core/chatHtml';
import { EXTENSION_ROOT } from '../paths';

const options = { cspSource: 'vscode-webview://abc', nonce: 'N0nce', scriptUri: 'vscode-webview://abc/dist/webview.js', styleUri: 'vscode-webview://abc/media/chat.css' };

test('the CSP denies everything by default and allows only nonce-tagged scripts', () => {
  const csp = contentSecurityPolicy(options.cspSource, options.nonce);
  assert.match(csp, /^default-src 'none';/);
  assert.match(csp, /script-src 'nonce-N0nce'(;|$)/);
  for (const forbidden of ['unsafe-eval', 'unsafe-inline', 'http:', 'https:', '*']) assert.ok(!csp.includes(forbidden), forbidden);
});

test('every script tag carries the nonce; no inline handlers or styles', () => {
  const html = chatHtml(options);
  const scripts = html.match(/<script\b[^>]*>/g) ?? [];
  assert.equal(scripts.length, 1);
  for (const tag of scripts) assert.match(tag, /nonce="N0nce"/);
  assert.ok(!/\son[a-z]+=/i.test(html), 'no inline event handlers');
  assert.ok(!/\sstyle=/i.test(html), 'no inline styles');
  assert.ok(!/https?:\/\//.test(html.replace(/http-equiv/g, '')), 'no remote URLs');
});

test('nonces are 32 alphanumeric characters and differ between loads', () => {
  const a = makeNonce(Math.random);
  assert.match(a, /^[A-Za-z0-9]{32}$/);
  assert.notEqual(a, makeNonce(Math.random));
});

test('the bundled webview script uses no eval, Function constructor or string timers', () => {
  const source = readFileSync(path.join(EXTENSION_ROOT, 'dist', 'webview.js'), 'utf8');
  assert.ok(!/\beval\s*\(/.test(source), 'eval');
  assert.ok(!/new\s+Function\s*\(/.test(source), 'new Function');
  assert.ok(!/set(Timeout|Interval)\(\s*["'`]/.test(source), 'string timers');
  assert.ok(!/https?:\/\//.test(source), 'remote URLs');
});
