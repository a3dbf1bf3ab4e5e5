/**
 * "Show diff" for proposed edits: `vscode.diff` between the current text and the proposal,
 * the proposal served by a read-only virtual document provider (scheme `dsh-proposed`).
 *
 * The left side is the real file when it exists, so an open editor's unsaved text is what is
 * compared; the right side is the current text with the tool call's replacements applied
 * (`core/proposedText`). A replacement that cannot be placed falls back to comparing the
 * fragments themselves.
 */

import * as path from 'node:path';
import * as vscode from 'vscode';
import { type DiffItem, proposeEdit } from './core/proposedText';

export const PROPOSED_SCHEME = 'dsh-proposed';
/** Virtual documents kept at most (oldest dropped first). */
const MAX_DOCUMENTS = 200;

export class ProposedDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private next = 1;
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  /** Store `text` under a fresh read-only URI whose path ends like `filePath` (for highlighting). */
  put(filePath: string, label: string, text: string): vscode.Uri {
    const id = String(this.next++);
    this.texts.set(id, text);
    if (this.texts.size > MAX_DOCUMENTS) {
      const oldest = this.texts.keys().next().value;
      if (oldest !== undefined) this.texts.delete(oldest);
    }
    const base = path.posix.basename(filePath.replace(/\\/g, '/')) || 'untitled';
    return vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${id}/${label}/${base}` });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const id = uri.path.split('/')[1] ?? '';
    return this.texts.get(id) ?? '';
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}

async function currentText(uri: vscode.Uri): Promise<string | undefined> {
  const open = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
  if (open !== undefined) return open.getText();
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}

/** Open a diff editor for `items` (the diffs of one file, applied in order) against `uri`. */
export async function showProposedDiff(
  documents: ProposedDocuments,
  uri: vscode.Uri,
  items: readonly DiffItem[],
  replaceAll: boolean,
): Promise<void> {
  const current = await currentText(uri);
  const proposal = proposeEdit(current, items, replaceAll);
  const name = path.basename(uri.fsPath || uri.path);
  if (proposal.kind === 'whole') {
    const left = current === undefined ? documents.put(uri.path, 'new-file', '') : uri;
    const right = documents.put(uri.path, 'proposed', proposal.proposed);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${name} ↔ proposed by dsh`, { preview: true });
    return;
  }
  const left = documents.put(uri.path, 'replaced', proposal.oldText);
  const right = documents.put(uri.path, 'replacement', proposal.newText);
  await vscode.commands.executeCommand('vscode.diff', left, right, `${name}: proposed change (fragment: ${proposal.reason})`, {
    preview: true,
  });
}
