/** Paths the tests use: the extension root and the repository root (bundled tests live in out/test/<tier>/). */
import * as path from 'node:path';

export const EXTENSION_ROOT = path.resolve(__dirname, '..', '..', '..');
export const REPO_ROOT = path.resolve(EXTENSION_ROOT, '..', '..');
export const VENV_BIN = path.join(REPO_ROOT, '.venv', 'bin');
