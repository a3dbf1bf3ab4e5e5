// The real-VS-Code end-to-end run (started by scripts/vscode-e2e.sh run, under Node 24).
//
// A scripted model server answers read → edit → text. code-server (a real VS Code) gets the
// packaged .vsix, settings pointing at .venv/bin/dsh-lsp with edit approval on, and a
// workspace with app.py. Headless Chromium then works the UI like a person: opens app.py and
// types an unsaved line (a dirty document), opens the dsh chat view, sends a prompt, opens
// "Show diff" from the approval card, clicks Allow, and waits for the turn to end. It checks
// that the edit landed in the dirty buffer (still dirty, disk untouched), saves screenshots
// and result.json under test-results/, and exits 0 only when every check passed.
//
// Then the editor's language servers as agent tools (issue 20): data.json is opened (VS Code's
// own JSON language server attaches), the agent's first edit breaks it and its second fixes it;
// the model must have been told, in the first edit's result, the JSON server's error for the
// version that edit wrote, and "No new problems." in the second's and in a third edit's that
// keeps the file valid (read back from what the scripted model server recorded); between them
// the agent's `diagnostics` tool lists the error, and its card's `data.json:3` opens that line.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const sparticuz = (await import('@sparticuz/chromium')).default;

const { values: opt } = parseArgs({
  options: {
    'code-server': { type: 'string' },
    vsix: { type: 'string' },
    python: { type: 'string' },
    server: { type: 'string' },
    work: { type: 'string' },
    results: { type: 'string' },
  },
});
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const log = (message) => console.error(`[${elapsed()}] ${message}`);
const checks = {};
const timings = {};
const children = [];

rmSync(opt.work, { recursive: true, force: true });
for (const name of ['vscode-approval-diff.png', 'vscode-chat.png', 'vscode-long-answer.png', 'vscode-diagnostics.png', 'vscode-failure.png', 'vscode-result.json']) {
  rmSync(path.join(opt.results, name), { force: true });
}
const dirs = Object.fromEntries(
  ['ws', 'user-data/User', 'user-data/Machine', 'extensions', 'config', 'data', 'state', 'cache', 'sessions'].map((name) => [name, path.join(opt.work, name)]),
);
for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
const ws = dirs.ws;
const appFile = path.join(ws, 'app.py');
const onDisk = 'x = 1\ny = 2\n';
writeFileSync(appFile, onDisk);
const dataFile = path.join(ws, 'data.json');
writeFileSync(dataFile, '{\n  "a": 1,\n  "b": 2\n}\n');

// ---- the scripted model: read app.py, edit it, answer
function payload(delta, finish = null, usage) {
  const chunk = { id: 'c', object: 'chat.completion.chunk', model: 'scripted', choices: [{ index: 0, delta, finish_reason: finish }] };
  if (usage) chunk.usage = usage;
  return JSON.stringify(chunk);
}
const usage = { prompt_tokens: 1200, completion_tokens: 40, total_tokens: 1240, prompt_cache_hit_tokens: 1024, prompt_cache_miss_tokens: 176, prompt_tokens_details: { cached_tokens: 1024 } };
function toolTurn(id, name, args) {
  return {
    stream: [
      { data: payload({ role: 'assistant', content: null, reasoning_content: '' }) },
      { data: payload({ content: null, reasoning_content: `I should use ${name} on app.py.` }) },
      { data: payload({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }] }) },
      { data: payload({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(args) } }] }) },
      { data: payload({ content: '' }, 'tool_calls', usage) },
      { data: '[DONE]' },
    ],
  };
}
const answer = 'I changed `y` to **20** in `app.py`:\n\n```python\nx = 1\ny = 20\n```\n\nThe edit is in your editor, unsaved — undo it with Ctrl+Z.';
const script = {
  responses: [
    toolTurn('call_read', 'read', { file_path: appFile }),
    toolTurn('call_edit', 'edit', { file_path: appFile, old_string: 'y = 2', new_string: 'y = 20' }),
    { stream: [...answer.match(/.{1,6}/gs).map((piece) => ({ data: payload({ content: piece }) })), { data: payload({ content: '' }, 'stop', usage) }, { data: '[DONE]' }] },
  ],
};
// A 5,000-chunk answer (prose, lists and a long code block) for the rendering measurement.
const longParts = [];
for (let i = 0; i < 80; i++) longParts.push(`Paragraph ${i} explains **step ${i}** with \`code_${i}\` in more words.\n\n- point a\n- point b\n\n`);
longParts.push('```python\n');
for (let i = 0; i < 150; i++) longParts.push(`def f${i}(x):\n    return x * ${i}\n`);
longParts.push('```\n\nThat is all.');
const longText = longParts.join('');
const longChunks = Array.from({ length: 5000 }, (_, i) => longText.slice(Math.floor((i * longText.length) / 5000), Math.floor(((i + 1) * longText.length) / 5000)));
script.responses.push({
  stream: [...longChunks.map((piece) => ({ data: payload({ content: piece }) })), { data: payload({ content: '' }, 'stop', usage) }, { data: '[DONE]' }],
});
// Issue 20: break data.json, then fix it; each edit's result should carry the JSON server's view of its version.
const textTurn = (text) => ({ stream: [{ data: payload({ content: text }) }, { data: payload({ content: '' }, 'stop', usage) }, { data: '[DONE]' }] });
script.responses.push(
  toolTurn('call_read_json', 'read', { file_path: dataFile }),
  toolTurn('call_break_json', 'edit', { file_path: dataFile, old_string: '"b": 2', new_string: '"b": 2 "c": 3' }),
  toolTurn('call_diag_json', 'diagnostics', { path: dataFile }),
  toolTurn('call_fix_json', 'edit', { file_path: dataFile, old_string: '"b": 2 "c": 3', new_string: '"b": 2, "c": 3' }),
  toolTurn('call_clean_json', 'edit', { file_path: dataFile, old_string: '"a": 1', new_string: '"a": 10' }),
  textTurn('Added `c` to data.json.'),
);
const scriptFile = path.join(opt.work, 'script.json');
writeFileSync(scriptFile, JSON.stringify(script));
const recordFile = path.join(opt.work, 'model-requests.jsonl');
/** The text of the tool result `id` the scripted model received. */
function toolResultText(id) {
  let lines = [];
  try {
    lines = readFileSync(recordFile, 'utf8').split('\n').filter((line) => line.trim() !== '');
  } catch {
    return '';
  }
  for (const line of lines) {
    for (const message of JSON.parse(line).body?.messages ?? []) if (message.role === 'tool' && message.tool_call_id === id) return String(message.content);
  }
  return '';
}

function startProcess(command, args, options, ready) {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${path.basename(command)} did not start:\n${output}`)), 60_000);
    const onData = (data) => {
      output += data.toString();
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${path.basename(command)} exited ${code}:\n${output}`)));
  });
}

function cleanup() {
  for (const child of children) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}

let browser;
let page;
try {
  const model = await startProcess(opt.python, ['-m', 'dsh_lsp.testing.scripted_server', '--script', scriptFile, '--record', recordFile], { cwd: ws }, /listening on port (\d+)/);
  const modelPort = Number(model.match[1]);
  log(`scripted model on ${modelPort}`);

  // Machine-scoped settings (the server path, the session directory) belong in the remote
  // machine's settings when VS Code runs remotely, as code-server does.
  writeFileSync(
    path.join(dirs['user-data/Machine'], 'settings.json'),
    JSON.stringify({
      'dsh.server.command': [opt.server, '--log-file', path.join(opt.work, 'dsh-lsp.log'), '--log-level', 'info'],
      'dsh.sessionDir': dirs.sessions,
    }),
  );
  writeFileSync(
    path.join(dirs['user-data/User'], 'settings.json'),
    JSON.stringify(
      {
        'dsh.permissions.edit': 'ask',
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'security.workspace.trust.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'update.mode': 'none',
        'files.autoSave': 'off',
        'chat.commandCenter.enabled': false,
        'chat.disableAIFeatures': true,
        'git.openRepositoryInParentFolders': 'never',
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'workbench.colorTheme': 'Default Dark Modern',
      },
      null,
      2,
    ),
  );
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: dirs.config,
    XDG_DATA_HOME: dirs.data,
    XDG_STATE_HOME: dirs.state,
    XDG_CACHE_HOME: dirs.cache,
    DEEPSEEK_BASE_URL: `http://127.0.0.1:${modelPort}`,
    DEEPSEEK_API_KEY: 'scripted-key',
  };
  const common = ['--user-data-dir', path.join(opt.work, 'user-data'), '--extensions-dir', dirs.extensions];
  const install = spawnSync(process.execPath, [opt['code-server'], ...common, '--install-extension', opt.vsix], { env, encoding: 'utf8' });
  checks.installed = install.status === 0 && /successfully installed/i.test(install.stdout + install.stderr);
  if (!checks.installed) throw new Error(`install failed: ${install.stdout}${install.stderr}`);
  timings.installed = elapsed();
  log('vsix installed');

  const cs = await startProcess(
    process.execPath,
    [opt['code-server'], ...common, '--bind-addr', '127.0.0.1:0', '--auth', 'none', '--disable-workspace-trust', '--disable-telemetry', '--disable-update-check', ws],
    { env, cwd: ws },
    /HTTP server listening on (http:\/\/[\d.:]+)/,
  );
  const base = cs.match[1];
  log(`code-server at ${base}`);

  browser = await chromium.launch({ executablePath: await sparticuz.executablePath(), args: sparticuz.args, headless: true });
  page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  page.setDefaultTimeout(30_000);
  await page.goto(`${base}/?folder=${encodeURIComponent(ws)}`);
  await page.waitForSelector('.monaco-workbench .part.editor');
  checks.workbench = true;
  timings.workbench = elapsed();
  log('workbench ready');

  // Open app.py and change it without saving.
  await page.keyboard.press('Control+P');
  await page.keyboard.type('app.py');
  await page.waitForSelector('.quick-input-list .monaco-list-row');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.tab.active[aria-label*="app.py"]');
  await page.click('.editor-instance .view-lines');
  await page.keyboard.press('Control+End');
  await page.keyboard.type('z = 3');
  await page.waitForSelector('.tab.active.dirty');
  checks.documentDirty = true;
  log('app.py is dirty');

  // Open the chat view and send a prompt.
  await page.keyboard.press('F1');
  await page.keyboard.type('dsh: Open Chat');
  await page.waitForSelector('.quick-input-list .monaco-list-row');
  await page.keyboard.press('Enter');
  let chat;
  for (let attempt = 0; attempt < 100 && !chat; attempt++) {
    for (const frame of page.frames()) {
      if (await frame.$('#input').catch(() => null)) chat = frame;
    }
    if (!chat) await page.waitForTimeout(200);
  }
  if (!chat) throw new Error('the chat webview did not appear');
  checks.chatOpened = true;
  timings.chatOpened = elapsed();
  log('chat view open');
  await chat.waitForSelector('body[data-ready="true"]:not(.running)');
  await chat.fill('#input', 'Please set y to 20 in app.py');
  await chat.press('#input', 'Enter');

  const allow = await chat.waitForSelector('.item-permission.permission-pending button[data-option="allow_once"]');
  checks.approvalCard = true;
  const primary = await chat.$$eval('.item-permission.permission-pending button.primary', (buttons) => buttons.map((b) => b.dataset.option));
  checks.onlyAllowOncePrimary = JSON.stringify(primary) === '["allow_once"]';
  log('approval card shown');
  await chat.click('.item-permission button[data-action="showDiff"]');
  await page.waitForSelector('.monaco-diff-editor');
  checks.diffOpened = true;
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(opt.results, 'vscode-approval-diff.png') });
  log('diff editor open');
  await page.keyboard.press('Control+W'); // close the diff; app.py is the active editor again
  await page.waitForSelector('.monaco-diff-editor', { state: 'detached' });
  await allow.click();

  await chat.waitForSelector('.item-turn');
  checks.turnEnded = true;
  timings.turnEnded = elapsed();
  const footer = await chat.textContent('.item-turn');
  checks.usageShown = /in \d+.*out \d+.*cached/.test(footer ?? "");
  log(`turn ended: ${footer}`);

  // The edit should be in the dirty buffer of app.py (the active editor), the disk untouched.
  await page.waitForTimeout(500);
  const shown = (await page.textContent('.editor-instance .view-lines')) ?? '';
  const text = shown.replace(/\u00a0/g, ' ');
  checks.bufferEdited = text.includes('y = 20') && text.includes('z = 3');
  checks.bufferStillDirty = (await page.$('.tab.active.dirty')) !== null;
  checks.diskUnchanged = readFileSync(appFile, 'utf8') === onDisk;
  // The cards as a user reads them: the edit card shows the changed line with its context
  // (not the whole file removed and re-added), the read card keeps the model-facing text
  // folded, the approval card does not repeat the lines, only "Allow" is primary (checked while it waits, above).
  const miniDiff = (await chat.textContent('.item-tool .mini-diff')) ?? '';
  checks.editCardShowsHunks = miniDiff.includes('- y = 2') && miniDiff.includes('+ y = 20') && !miniDiff.includes('- x = 1');
  checks.readCardFolded = (await chat.$('.item-tool details.tool-output:not([open])')) !== null;
  checks.approvalNotRepeated = (await chat.$('.item-permission .mini-diff')) === null;
  await page.screenshot({ path: path.join(opt.results, 'vscode-chat.png') });

  // A 5,000-chunk answer: time it and record the webview's long main-thread tasks.
  await chat.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => window.__longTasks.push(...list.getEntries().map((e) => e.duration))).observe({ entryTypes: ['longtask'] });
  });
  const streamStart = Date.now();
  await chat.fill('#input', 'Now write a long answer');
  await chat.press('#input', 'Enter');
  await chat.waitForFunction(() => document.querySelectorAll('.item-turn').length >= 2, undefined, { timeout: 60_000 });
  const streamMs = Date.now() - streamStart;
  const longTasks = await chat.evaluate(() => window.__longTasks);
  const rendered = await chat.evaluate(() => document.querySelectorAll('.item-agent').item(document.querySelectorAll('.item-agent').length - 1).textContent.length);
  timings.stream5000 = { chunks: 5000, ms: streamMs, longTasks: longTasks.length, longestTaskMs: Math.round(Math.max(0, ...longTasks)), renderedChars: rendered };
  checks.longAnswerRendered = rendered > longText.length * 0.8 && Math.max(0, ...longTasks) < 500;
  await page.screenshot({ path: path.join(opt.results, 'vscode-long-answer.png') });
  log(`5,000 chunks in ${streamMs} ms; long tasks ${JSON.stringify(longTasks.map(Math.round))}`);
  log(`buffer: ${JSON.stringify(text)}; disk: ${JSON.stringify(readFileSync(appFile, 'utf8'))}`);

  // Issue 20: the JSON language server's diagnostics for the exact version each edit wrote.
  await page.click('.editor-instance .view-lines'); // the workbench, not the chat, gets Ctrl+P
  await page.keyboard.press('Control+P');
  await page.waitForSelector('.quick-input-widget input');
  await page.keyboard.type('data.json');
  await page.click('.quick-input-list .monaco-list-row[aria-label*="data.json"]');
  await page.waitForSelector('.tab.active[aria-label*="data.json"]');
  const jsonStart = Date.now();
  await chat.fill('#input', 'Add c to data.json');
  await chat.press('#input', 'Enter');
  for (let approval = 0; approval < 3; approval++) {
    const button = await chat.waitForSelector('.item-permission.permission-pending button[data-option="allow_once"]');
    await button.click();
    await chat.waitForSelector('.item-permission.permission-pending', { state: 'detached' }).catch(() => undefined);
  }
  await chat.waitForFunction(() => document.querySelectorAll('.item-turn').length >= 3, undefined, { timeout: 60_000 });
  timings.jsonTurnMs = Date.now() - jsonStart;
  const brokenResult = toolResultText('call_break_json');
  const fixedResult = toolResultText('call_fix_json');
  const cleanResult = toolResultText('call_clean_json');
  checks.editResultCarriesDiagnostic = /expected comma/i.test(brokenResult) && /data\.json:3/.test(brokenResult);
  checks.fixResultNoNewProblems = /no new problems/i.test(fixedResult) && !/expected comma/i.test(fixedResult);
  // clean before and after: VS Code still reports a diagnostics change for the new version
  checks.cleanEditNoNewProblems = /no new problems/i.test(cleanResult);
  // The diagnostics tool's card lists the problem's place; a click opens data.json at that line.
  checks.diagnosticsToolAnswered = /data\.json:3:10: error: Expected comma/.test(toolResultText('call_diag_json'));
  const place = chat.locator('.item-tool', { hasText: 'Diagnostics' }).locator('.locations button', { hasText: 'data.json:3' });
  checks.diagnosticsCardLocation = (await place.count()) === 1;
  await place.click();
  await page.waitForSelector('.statusbar-item:has-text("Ln 3, Col 1")');
  checks.locationOpensLine = true;
  const markers = await page.evaluate(() => document.querySelectorAll('.squiggly-error').length);
  // The extension logs, per versioned request, how long the JSON server took to report on it.
  const logFiles = readdirSync(path.join(opt.work, 'user-data', 'logs'), { recursive: true }).filter((name) => String(name).endsWith('dsh.log'));
  const waits = logFiles
    .flatMap((name) => readFileSync(path.join(opt.work, 'user-data', 'logs', String(name)), 'utf8').split('\n'))
    .flatMap((line) => {
      const match = /diagnostics of \S*data\.json v(\d+): (reported|not reported[^)]*\)) after (\d+) ms/.exec(line);
      return match ? [{ version: Number(match[1]), outcome: match[2], ms: Number(match[3]) }] : [];
    });
  timings.json = { errorSquigglesAfterFix: markers, diagnosticsWaits: waits };
  checks.everyEditVersionReported = waits.length === 3 && waits.every((wait) => wait.outcome === 'reported');
  log(`edit result: ${JSON.stringify(brokenResult)}; fix result: ${JSON.stringify(fixedResult)}; clean edit: ${JSON.stringify(cleanResult)}`);
  await page.screenshot({ path: path.join(opt.results, 'vscode-diagnostics.png') }).catch((error) => log(`no screenshot: ${error}`));
} catch (error) {
  checks.error = String(error?.stack ?? error);
  log(checks.error);
  await page?.screenshot({ path: path.join(opt.results, 'vscode-failure.png') }).catch(() => undefined);
} finally {
  timings.total = elapsed();
  writeFileSync(path.join(opt.results, 'vscode-result.json'), `${JSON.stringify({ checks, timings }, null, 2)}\n`);
  await browser?.close().catch(() => undefined);
  cleanup();
}
const required = ['installed', 'workbench', 'documentDirty', 'chatOpened', 'approvalCard', 'onlyAllowOncePrimary', 'diffOpened', 'turnEnded', 'usageShown', 'bufferEdited', 'bufferStillDirty', 'diskUnchanged', 'editCardShowsHunks', 'readCardFolded', 'approvalNotRepeated', 'longAnswerRendered', 'editResultCarriesDiagnostic', 'fixResultNoNewProblems', 'cleanEditNoNewProblems', 'everyEditVersionReported', 'diagnosticsToolAnswered', 'diagnosticsCardLocation', 'locationOpensLine'];
const failed = required.filter((name) => checks[name] !== true);
console.log(`${required.length - failed.length} passed, ${failed.length} failed${failed.length ? `: ${failed.join(', ')}` : ''}`);
process.exit(failed.length ? 1 : 0);
