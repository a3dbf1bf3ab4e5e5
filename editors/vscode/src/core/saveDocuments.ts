/**
 * Answering `dsh/saveDocuments` (pure: the open documents come in as plain objects).
 *
 * With `dsh.edits.saveAfterTurn` on, the server lists the documents the agent edited that are
 * not saved yet at the end of each turn. Each listed document that is open in the editor is
 * saved through its own `save()` (so save participants and format-on-save run as for a user
 * save); the answer names the uris that were saved. A uri that is not open, an untitled
 * document (saving it would open a Save As dialog) and a failed save are left out, and the
 * server keeps them pending. Uris are compared in canonical form (`canonical`), since the
 * server may spell a uri differently from the editor (percent-encoding, drive letters).
 */

import { parseSaveDocuments } from './parse';
import type { SaveDocumentsResult } from './protocol';

export interface SavableDocument {
  /** The document's uri in the editor's canonical spelling. */
  readonly uri: string;
  readonly isUntitled: boolean;
  readonly isClosed: boolean;
  /** Resolves true when the document was written. */
  save(): PromiseLike<boolean>;
}

export interface SaveDeps {
  /** The documents open in the editor now. */
  documents(): readonly SavableDocument[];
  /** A uri from the server in the editor's canonical spelling. */
  canonical(uri: string): string;
  warn(message: string): void;
}

/** Save every listed open document; resolves with the uris saved, in request order. Never rejects. */
export async function saveDocuments(params: unknown, deps: SaveDeps): Promise<SaveDocumentsResult> {
  const request = parseSaveDocuments(params);
  if (request === undefined) {
    deps.warn('dsh: dsh/saveDocuments: malformed params, nothing saved');
    return { saved: [] };
  }
  const saved: string[] = [];
  for (const uri of new Set(request.uris)) {
    let wanted: string;
    try {
      wanted = deps.canonical(uri);
    } catch {
      deps.warn(`dsh: dsh/saveDocuments: not a uri: ${uri}`);
      continue;
    }
    const document = deps.documents().find((d) => d.uri === wanted && !d.isClosed);
    if (document === undefined || document.isUntitled) continue;
    try {
      if (await document.save()) saved.push(uri);
      else deps.warn(`dsh: could not save ${uri}`);
    } catch (error) {
      deps.warn(`dsh: could not save ${uri}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { saved };
}
