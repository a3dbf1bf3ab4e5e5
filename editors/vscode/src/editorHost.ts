/**
 * The `vscode` side of `dsh/editor/*` (host module): `EditorHost` over VS Code's language API.
 *
 * Diagnostics come from `vscode.languages.getDiagnostics` minus dsh-lsp's own collection;
 * definitions, references, workspace symbols and hovers from the `vscode.execute*Provider`
 * commands, which ask every provider the other extensions registered (dsh-lsp registers none of
 * these). A document the server names that is not open is loaded with `openTextDocument`
 * (never shown). `EditorServices` also feeds `DiagnosticsVersions` from the document and
 * diagnostics events, from construction on; the pure handlers live in `core/editorRequests.ts`.
 */

import * as vscode from 'vscode';
import {
  type Cancel,
  DiagnosticsVersions,
  editorHandlers,
  type EditorHandlers,
  type EditorHost,
  type HostDiagnostic,
  type HostHoverPart,
  type HostLocation,
  type HostLocationLink,
  type HostSymbol,
  timerSchedule,
} from './core/editorRequests';
import type { LineTexts } from './core/positionEncoding';
import type { EditorDiagnosticsResult, Position, PositionEncoding, Range } from './core/protocol';

function plainRange(range: vscode.Range): Range {
  return { start: { line: range.start.line, character: range.start.character }, end: { line: range.end.line, character: range.end.character } };
}

function plainDiagnostic(diagnostic: vscode.Diagnostic): HostDiagnostic {
  const plain: HostDiagnostic = { range: plainRange(diagnostic.range), severity: diagnostic.severity, message: diagnostic.message };
  const code = typeof diagnostic.code === 'object' && diagnostic.code !== null ? diagnostic.code.value : diagnostic.code;
  if (code !== undefined) plain.code = code;
  if (diagnostic.source !== undefined) plain.source = diagnostic.source;
  return plain;
}

function diagnosticKey(d: HostDiagnostic): string {
  return JSON.stringify([d.range, d.severity, d.code ?? null, d.source ?? null, d.message]);
}

function plainHoverPart(part: vscode.MarkdownString | vscode.MarkedString): HostHoverPart {
  if (typeof part === 'string') return part;
  if ('language' in part) return { language: part.language, value: part.value };
  return part.value;
}

export interface EditorServicesDeps {
  /** dsh-lsp's own diagnostics (its client's collection), left out of every answer. */
  ownDiagnostics(uri: vscode.Uri): readonly vscode.Diagnostic[];
  /** The connection's negotiated position encoding. */
  encoding(): PositionEncoding;
  warn(message: string): void;
  info(message: string): void;
}

/** The `dsh/editor/*` handlers over the editor's other language servers, and the version clock they read. */
export class EditorServices implements vscode.Disposable {
  readonly versions = new DiagnosticsVersions(timerSchedule);
  /** The five handlers; a diagnostics request for a version logs how long its report took (one line per agent edit). */
  readonly handlers: EditorHandlers;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly deps: EditorServicesDeps) {
    const versions = this.versions;
    for (const document of vscode.workspace.textDocuments) if (!document.isClosed) versions.documentVersion(document.uri.toString(), document.version);
    this.subscriptions.push(
      vscode.workspace.onDidOpenTextDocument((document) => versions.documentVersion(document.uri.toString(), document.version)),
      vscode.workspace.onDidChangeTextDocument((event) => versions.documentVersion(event.document.uri.toString(), event.document.version)),
      vscode.workspace.onDidCloseTextDocument((document) => versions.closed(document.uri.toString())),
      vscode.languages.onDidChangeDiagnostics((event) => {
        for (const uri of event.uris) versions.diagnosticsChanged(uri.toString());
      }),
    );
    const handlers = editorHandlers({ host: vscodeEditorHost(deps), versions });
    this.handlers = { ...handlers, diagnostics: (params, cancel) => this.timedDiagnostics(handlers, params, cancel) };
  }

  private async timedDiagnostics(handlers: EditorHandlers, params: unknown, cancel?: Cancel): Promise<EditorDiagnosticsResult> {
    const started = Date.now();
    const result = await handlers.diagnostics(params, cancel);
    const asked = typeof params === 'object' && params !== null ? (params as { version?: unknown }).version : undefined;
    const item = result.items[0];
    if (typeof asked === 'number' && item !== undefined) {
      const outcome = item.version === asked ? 'reported' : `not reported (answered version ${String(item.version)})`;
      this.deps.info(`dsh: diagnostics of ${item.uri} v${asked}: ${outcome} after ${Date.now() - started} ms, ${item.diagnostics.length} diagnostics`);
    }
    return result;
  }

  dispose(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
  }
}

function vscodeEditorHost(deps: EditorServicesDeps): EditorHost {
  const openDocument = (uri: string) => vscode.workspace.textDocuments.find((document) => !document.isClosed && document.uri.toString() === uri);
  const others = (uri: vscode.Uri, all: readonly vscode.Diagnostic[]): HostDiagnostic[] => {
    const own = new Set(deps.ownDiagnostics(uri).map((d) => diagnosticKey(plainDiagnostic(d))));
    return all.map(plainDiagnostic).filter((d) => !own.has(diagnosticKey(d)));
  };
  const position = (p: Position) => new vscode.Position(p.line, p.character);
  return {
    canonical: (uri) => vscode.Uri.parse(uri, true).toString(),
    version: (uri) => openDocument(uri)?.version,
    load: async (uri) => (await vscode.workspace.openTextDocument(vscode.Uri.parse(uri, true))).version,
    lines: async (uri): Promise<LineTexts | undefined> => {
      try {
        const document = openDocument(uri) ?? (await vscode.workspace.openTextDocument(vscode.Uri.parse(uri, true)));
        return (line) => (line >= 0 && line < document.lineCount ? document.lineAt(line).text : undefined);
      } catch {
        return undefined;
      }
    },
    diagnostics: (uri) => {
      const parsed = vscode.Uri.parse(uri, true);
      return others(parsed, vscode.languages.getDiagnostics(parsed));
    },
    allDiagnostics: () => vscode.languages.getDiagnostics().map(([uri, diagnostics]) => [uri.toString(), others(uri, diagnostics)]),
    definitions: async (uri, at) => {
      const found = await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[] | undefined>(
        'vscode.executeDefinitionProvider',
        vscode.Uri.parse(uri, true),
        position(at),
      );
      return (found ?? []).map((item): HostLocation | HostLocationLink => {
        if ('targetUri' in item) {
          const link: HostLocationLink = { targetUri: item.targetUri.toString(), targetRange: plainRange(item.targetRange) };
          if (item.targetSelectionRange !== undefined) link.targetSelectionRange = plainRange(item.targetSelectionRange);
          return link;
        }
        return { uri: item.uri.toString(), range: plainRange(item.range) };
      });
    },
    references: async (uri, at) => {
      const found = await vscode.commands.executeCommand<vscode.Location[] | undefined>('vscode.executeReferenceProvider', vscode.Uri.parse(uri, true), position(at));
      return (found ?? []).map((item) => ({ uri: item.uri.toString(), range: plainRange(item.range) }));
    },
    workspaceSymbols: async (query) => {
      const found = await vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>('vscode.executeWorkspaceSymbolProvider', query);
      return (found ?? []).map((item) => {
        const symbol: HostSymbol = { name: item.name, kind: item.kind, uri: item.location.uri.toString() };
        if (item.location.range !== undefined) symbol.range = plainRange(item.location.range);
        if (item.containerName) symbol.containerName = item.containerName;
        return symbol;
      });
    },
    hovers: async (uri, at) => {
      const found = await vscode.commands.executeCommand<vscode.Hover[] | undefined>('vscode.executeHoverProvider', vscode.Uri.parse(uri, true), position(at));
      return (found ?? []).map((hover) => hover.contents.map(plainHoverPart));
    },
    encoding: () => deps.encoding(),
    warn: (message) => deps.warn(message),
  };
}
