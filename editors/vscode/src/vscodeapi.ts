/**
 * The thin seam over the `vscode` API that the extension's host modules read the world through.
 *
 * Configuration, workspace roots, the open documents, the interpreter the Python extension
 * selected, PATH lookup and the clock live here, so the other modules take plain functions
 * and values and the load test can run the bundle against a stub `vscode` module.
 */

import { constants as fsConstants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { whichIn } from './core/serverCommand';
import type { SavableDocument } from './core/saveDocuments';
import type { Substitutions } from './core/settings';

export const SECTION = 'dsh';

/** Read one key below `dsh.` (`undefined` when unset). */
export function readSetting(key: string): unknown {
  return vscode.workspace.getConfiguration(SECTION).get<unknown>(key);
}

export function workspaceRoot(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

/** The text documents open now, as `dsh/saveDocuments` needs them. */
export function openDocuments(): SavableDocument[] {
  return vscode.workspace.textDocuments.map((document) => ({
    uri: document.uri.toString(),
    isUntitled: document.isUntitled,
    isClosed: document.isClosed,
    save: () => document.save(),
  }));
}

export function substitutions(): Substitutions {
  const vars: Substitutions = { userHome: os.homedir(), env: process.env };
  const root = workspaceRoot();
  if (root !== undefined) vars.workspaceFolder = root;
  return vars;
}

async function isExecutable(candidate: string): Promise<boolean> {
  try {
    const stat = await fs.stat(candidate);
    if (!stat.isFile()) return false;
    if (process.platform !== 'win32') await fs.access(candidate, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function which(name: string): Promise<string | undefined> {
  const extensions = process.platform === 'win32' ? (process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  return whichIn(name, process.env.PATH, path.delimiter, isExecutable, extensions);
}

interface PythonExtensionApi {
  environments?: { getActiveEnvironmentPath?(resource?: vscode.Uri): { path: string } | undefined };
}

/** The interpreter the Python extension selected, or `python.defaultInterpreterPath`. */
export async function pythonInterpreter(): Promise<string | undefined> {
  try {
    const extension = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
    if (extension !== undefined) {
      const api = extension.isActive ? extension.exports : await extension.activate();
      const selected = api?.environments?.getActiveEnvironmentPath?.(vscode.workspace.workspaceFolders?.[0]?.uri);
      if (selected?.path && (await isExecutable(selected.path))) return selected.path;
    }
  } catch {
    // The Python extension is optional; any failure falls through to the setting.
  }
  const configured = vscode.workspace.getConfiguration('python').get<string>('defaultInterpreterPath');
  return configured && configured !== 'python' && (await isExecutable(configured)) ? configured : undefined;
}

export interface Clock {
  now(): number;
  after(ms: number, run: () => void): vscode.Disposable;
}

export const realClock: Clock = {
  now: () => Date.now(),
  after(ms, run) {
    const handle = setTimeout(run, ms);
    return new vscode.Disposable(() => clearTimeout(handle));
  },
};

/** Resolve a server-reported path (absolute, `file:` URI, or relative to `cwd`) to a URI. */
export function resolvePath(reported: string, cwd: string | undefined): vscode.Uri {
  if (/^[a-zA-Z][\w+.-]*:\/\//.test(reported)) return vscode.Uri.parse(reported);
  if (path.isAbsolute(reported)) return vscode.Uri.file(reported);
  const base = cwd ?? workspaceRoot() ?? process.cwd();
  return vscode.Uri.file(path.join(base, reported));
}

export function workspaceRelative(uri: vscode.Uri): string {
  return vscode.workspace.asRelativePath(uri, false);
}
