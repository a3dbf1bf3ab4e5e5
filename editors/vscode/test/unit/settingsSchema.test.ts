import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { CLIENT_SETTING_KEYS, SERVER_SETTING_SPECS } from '../../src/core/settings';
import { EXTENSION_ROOT, REPO_ROOT, VENV_BIN } from '../paths';
import { compareSettingSchemas, flattenPackageSettings, flattenServerSchema } from '../schemaSync';

const pkg = JSON.parse(readFileSync(path.join(EXTENSION_ROOT, 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, unknown> }; commands: { command: string }[] };
};
const properties = pkg.contributes.configuration.properties;

/** The server's settings model as JSON Schema: `dsh_lsp.server.DshSettings` (pydantic). */
const DUMP_SCHEMA = 'import json\nfrom dsh_lsp.server import DshSettings\nprint(json.dumps(DshSettings.model_json_schema(by_alias=True)))';

test('package.json settings match the server settings model (types, enums, defaults, bounds)', (t) => {
  const python = path.join(VENV_BIN, 'python');
  if (!existsSync(python)) {
    t.skip(`no ${python}: create the repository venv first`);
    return;
  }
  const run = spawnSync(python, ['-c', DUMP_SCHEMA], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, `dumping the server schema failed:\n${run.stderr}`);
  const server = flattenServerSchema(JSON.parse(run.stdout) as Record<string, unknown>);
  assert.ok(Object.keys(server).length >= 9, `server schema has ${Object.keys(server).join(', ')}`);
  const problems = compareSettingSchemas(server, flattenPackageSettings(properties, CLIENT_SETTING_KEYS));
  assert.deepEqual(problems, []);
});

test('settings.ts reads exactly the server keys package.json declares, with the same enums and bounds', () => {
  const declared = flattenPackageSettings(properties, CLIENT_SETTING_KEYS);
  assert.deepEqual(Object.keys(SERVER_SETTING_SPECS).sort(), Object.keys(declared).sort());
  for (const [key, spec] of Object.entries(SERVER_SETTING_SPECS)) {
    const flat = declared[key];
    assert.ok(flat !== undefined);
    if (spec.type === 'enum') assert.deepEqual([...spec.values].sort(), flat.enum, key);
    if (spec.type === 'integer') assert.deepEqual([spec.minimum, spec.maximum], [flat.minimum, flat.maximum], key);
  }
  for (const key of CLIENT_SETTING_KEYS) assert.ok(`dsh.${key}` in properties, key);
});

test('every contributed command and keybinding is one the extension registers', () => {
  const ids = pkg.contributes.commands.map((c) => c.command).sort();
  assert.deepEqual(ids, ['dsh.ask', 'dsh.cancel', 'dsh.compact', 'dsh.focusChat', 'dsh.newSession', 'dsh.restartServer', 'dsh.setApiKey', 'dsh.showSessions']);
});
