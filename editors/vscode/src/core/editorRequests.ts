/**
 * Answering `dsh/editor/*` from the editor's other language servers (pure: the editor comes
 * in as an `EditorHost` of plain objects; `src/editorHost.ts` builds it over `vscode`).
 *
 * The host hands over what VS Code's API gives — diagnostics, locations, location links,
 * workspace symbols and hovers in VS Code's numbering (severity 0 error … 3 hint, `SymbolKind`
 * from 0) with UTF-16 columns. This module turns them into the wire shapes of
 * docs/protocol.md: LSP numbering, `LocationLink`s reduced to their target, duplicates
 * dropped, columns converted to the connection's negotiated position encoding, and the
 * server's spelling of a uri kept for the document it asked about. Every handler resolves;
 * none rejects: a method no language server can answer, a malformed request or a failing
 * provider answers an empty result (with a log line).
 *
 * **Version-exact diagnostics.** VS Code does not say which document version a diagnostic
 * describes, so `DiagnosticsVersions` applies one rule: the diagnostics of a document count
 * as reported on version *v* when a diagnostics change for that document is observed after the
 * document reached *v* and while it is still at *v*. Until such a change, the version is
 * unknown (`null` on the wire), and a document already past the asked version answers at once
 * without it. A document no language server has reported on in the `NO_REPORTER_MS` since it
 * was opened is taken to have none that reports diagnostics: it answers at once too (version
 * unknown, `complete: false`) rather than after the deadline. The blind spot: a language server that publishes a late result for the previous
 * version after the change is taken as reporting on *v* (VS Code drops the version a push
 * `publishDiagnostics` carries). docs/protocol.md states the rule for every such client.
 */

import { convertPosition, convertRange, type LineTexts } from './positionEncoding';
import { parseEditorDiagnostics, parseEditorPosition, parseEditorSymbols } from './parse';
import {
  type EditorDiagnosticsItem,
  type EditorDiagnosticsResult,
  type EditorHoverResult,
  type EditorLocationsResult,
  type EditorSymbolsResult,
  Methods,
  type Position,
  type PositionEncoding,
  type Range,
  type WireDiagnostic,
  type WireLocation,
  type WireSymbol,
} from './protocol';

// ---------------------------------------------------------------------------------------------
// What the host gives (VS Code's shapes as plain data, UTF-16 columns)

export interface HostDiagnostic {
  range: Range;
  /** VS Code's `DiagnosticSeverity`: 0 error, 1 warning, 2 information, 3 hint. */
  severity: number;
  code?: string | number;
  source?: string;
  message: string;
}
export interface HostLocation {
  uri: string;
  range: Range;
}
export interface HostLocationLink {
  targetUri: string;
  targetRange: Range;
  targetSelectionRange?: Range;
}
export interface HostSymbol {
  name: string;
  /** VS Code's `SymbolKind` (0 file … 25 type parameter): the LSP number minus one. */
  kind: number;
  containerName?: string;
  uri: string;
  range?: Range;
}
/** One part of a hover: Markdown text, or a code block in `language`. */
export type HostHoverPart = string | { language: string; value: string };

/** A cancellation signal (the request's token). */
export interface Cancel {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): { dispose(): unknown };
}

export interface EditorHost {
  /** A server uri in the editor's canonical spelling; throws on a string that is not a uri. */
  canonical(uri: string): string;
  /** The version of the open document `uri` (canonical), or `undefined` when it is not open. */
  version(uri: string): number | undefined;
  /** Load `uri` the way its language servers need, without showing it; resolves with its version. Rejects when it cannot be loaded. */
  load(uri: string): Promise<number>;
  /** The lines of `uri` (loading it if needed), for column conversion; `undefined` when unreadable. */
  lines(uri: string): Promise<LineTexts | undefined>;
  /** The diagnostics of `uri` from every source but dsh-lsp itself. */
  diagnostics(uri: string): HostDiagnostic[];
  /** Every document with diagnostics from a source other than dsh-lsp, with them. */
  allDiagnostics(): [string, HostDiagnostic[]][];
  definitions(uri: string, position: Position): Promise<(HostLocation | HostLocationLink)[]>;
  /** References, the declaration included (VS Code's reference command always includes it). */
  references(uri: string, position: Position): Promise<HostLocation[]>;
  workspaceSymbols(query: string): Promise<HostSymbol[]>;
  /** One list of parts per hover. */
  hovers(uri: string, position: Position): Promise<HostHoverPart[][]>;
  /** The connection's negotiated position encoding. */
  encoding(): PositionEncoding;
  warn(message: string): void;
}

/**
 * How long diagnostics for a document the client had to open wait for its language servers'
 * first report when the request gives no `timeoutMs` (it asks for no version, so nothing else
 * bounds it): answering at once would always answer "no problems" for a file not open.
 */
export const FIRST_REPORT_MS = 1000;

/** Schedules `run` after `ms`; the returned function cancels it. */
export type Schedule = (ms: number, run: () => void) => () => void;

/** `Schedule` on the real timers (`setTimeout`), for a host that runs on them. */
export const timerSchedule: Schedule = (ms, run) => {
  const timer = setTimeout(run, ms);
  return () => clearTimeout(timer);
};

// ---------------------------------------------------------------------------------------------
// The version rule

interface DocumentClock {
  version: number | undefined;
  /** Sequence number of the moment the document reached `version`. */
  reachedAt: number;
  /** Sequence number of the last diagnostics change for the document (0: none seen). */
  reportedAt: number;
  /** When (ms, `now()`) the document was opened, and whether any diagnostics change came since. */
  openedAt: number;
  reportedSinceOpen: boolean;
}

/**
 * How long a document must have been open without a single diagnostics change before it is
 * taken to have no language server reporting diagnostics: a versioned request for it then
 * answers at once (`complete: false`, version unknown) instead of waiting out its `timeoutMs`,
 * so edits of files no linter or checker looks at do not pay the deadline every time.
 */
export const NO_REPORTER_MS = 5000;

/**
 * Which document version the current diagnostics describe (the rule in the module docstring).
 * The host feeds it every document open/change (`documentVersion`), close and diagnostics
 * change; `waitFor` resolves once version *v* is reported, or at a deadline.
 */
export class DiagnosticsVersions {
  private sequence = 0;
  private readonly documents = new Map<string, DocumentClock>();
  private readonly waiters = new Set<{ uri: string; check(): void }>();

  /** `now` is the clock `NO_REPORTER_MS` is measured on (ms). */
  constructor(
    private readonly schedule: Schedule,
    private readonly now: () => number = Date.now,
  ) {}

  /** The document `uri` is open at `version` (an open, an edit, or an event without a new version). */
  documentVersion(uri: string, version: number): void {
    const clock = this.documents.get(uri);
    if (clock !== undefined && clock.version === version) return;
    const opening = clock?.version === undefined;
    this.documents.set(uri, {
      version,
      reachedAt: ++this.sequence,
      reportedAt: clock?.reportedAt ?? 0,
      openedAt: opening ? this.now() : (clock?.openedAt ?? this.now()),
      reportedSinceOpen: opening ? false : (clock?.reportedSinceOpen ?? false),
    });
    this.wake(uri);
  }

  closed(uri: string): void {
    const clock = this.documents.get(uri);
    if (clock !== undefined) this.documents.set(uri, { ...clock, version: undefined, reachedAt: ++this.sequence, reportedSinceOpen: false });
    this.wake(uri);
  }

  /** A language server changed the diagnostics of `uri`. */
  diagnosticsChanged(uri: string): void {
    const clock = this.documents.get(uri) ?? { version: undefined, reachedAt: 0, reportedAt: 0, openedAt: 0, reportedSinceOpen: false };
    this.documents.set(uri, { ...clock, reportedAt: ++this.sequence, reportedSinceOpen: clock.version !== undefined });
    this.wake(uri);
  }

  /** The version the current diagnostics of `uri` describe, or `null` when that is not known. */
  reportedVersion(uri: string): number | null {
    const clock = this.documents.get(uri);
    return clock?.version !== undefined && clock.reportedAt > clock.reachedAt ? clock.version : null;
  }

  /** The version of `uri` this clock last saw (`undefined`: not open). */
  currentVersion(uri: string): number | undefined {
    return this.documents.get(uri)?.version;
  }

  /**
   * Resolves `true` once diagnostics are reported on `version` of `uri`; `false` at `timeoutMs`,
   * on cancellation, as soon as the document is past `version` (its diagnostics for `version`
   * can no longer be told apart), or at once when no language server has reported on the
   * document in the `NO_REPORTER_MS` since it was opened.
   */
  waitFor(uri: string, version: number, timeoutMs: number, cancel?: Cancel): Promise<boolean> {
    const settled = this.settled(uri, version);
    if (settled !== undefined) return Promise.resolve(settled);
    if (timeoutMs <= 0 || cancel?.isCancellationRequested === true || this.unreported(uri)) return Promise.resolve(false);
    return this.waitUntil(uri, timeoutMs, cancel, () => this.settled(uri, version));
  }

  /** Resolves once the next diagnostics change of `uri` is observed (`true`), or `false` at `timeoutMs`. */
  nextReport(uri: string, timeoutMs: number, cancel?: Cancel): Promise<boolean> {
    if (timeoutMs <= 0 || cancel?.isCancellationRequested === true) return Promise.resolve(false);
    const before = this.documents.get(uri)?.reportedAt ?? 0;
    return this.waitUntil(uri, timeoutMs, cancel, () => ((this.documents.get(uri)?.reportedAt ?? 0) > before ? true : undefined));
  }

  /**
   * Resolves with the first answer `settle` gives other than `undefined` (asked on every
   * diagnostics change of `uri`), or `false` at `timeoutMs` or on cancellation.
   */
  private waitUntil(uri: string, timeoutMs: number, cancel: Cancel | undefined, settle: () => boolean | undefined): Promise<boolean> {
    return new Promise((resolve) => {
      const finish = (value: boolean) => {
        this.waiters.delete(waiter);
        stopTimer();
        subscription?.dispose();
        resolve(value);
      };
      const waiter = {
        uri,
        check: () => {
          const now = settle();
          if (now !== undefined) finish(now);
        },
      };
      this.waiters.add(waiter);
      const stopTimer = this.schedule(timeoutMs, () => finish(false));
      const subscription = cancel?.onCancellationRequested(() => finish(false));
    });
  }

  /** Open for `NO_REPORTER_MS` without one diagnostics change: no language server reports on it. */
  private unreported(uri: string): boolean {
    const clock = this.documents.get(uri);
    return clock?.version !== undefined && !clock.reportedSinceOpen && this.now() - clock.openedAt >= NO_REPORTER_MS;
  }

  /** `true` reported on `version`; `false` never will be (the document moved past it); `undefined` not yet. */
  private settled(uri: string, version: number): boolean | undefined {
    const clock = this.documents.get(uri);
    if (clock?.version === undefined) return undefined;
    if (clock.version > version) return false;
    if (clock.version === version && clock.reportedAt > clock.reachedAt) return true;
    return undefined;
  }

  private wake(uri: string): void {
    for (const waiter of [...this.waiters]) if (waiter.uri === uri) waiter.check();
  }
}

// ---------------------------------------------------------------------------------------------
// Pure conversions

/** VS Code severity (0 error … 3 hint) → LSP (1 error … 4 hint); unknown values are left out. */
export function lspSeverity(severity: number): 1 | 2 | 3 | 4 | undefined {
  return severity === 0 ? 1 : severity === 1 ? 2 : severity === 2 ? 3 : severity === 3 ? 4 : undefined;
}

/** A diagnostic on the wire, columns in `encoding`. */
export function wireDiagnostic(diagnostic: HostDiagnostic, lines: LineTexts | undefined, encoding: PositionEncoding): WireDiagnostic {
  const range = lines === undefined ? diagnostic.range : convertRange(diagnostic.range, lines, 'utf-16', encoding);
  const wire: WireDiagnostic = { range, message: diagnostic.message };
  const severity = lspSeverity(diagnostic.severity);
  if (severity !== undefined) wire.severity = severity;
  if (diagnostic.code !== undefined && diagnostic.code !== '') wire.code = diagnostic.code;
  if (diagnostic.source !== undefined && diagnostic.source !== '') wire.source = diagnostic.source;
  return wire;
}

/** A `Location` as is; a `LocationLink` reduced to its `targetUri` and `targetSelectionRange` (else `targetRange`). */
export function reduceLocation(location: HostLocation | HostLocationLink): HostLocation {
  if ('targetUri' in location) return { uri: location.targetUri, range: location.targetSelectionRange ?? location.targetRange };
  return { uri: location.uri, range: location.range };
}

function rangeKey(range: Range): string {
  return `${range.start.line}:${range.start.character}-${range.end.line}:${range.end.character}`;
}

/** Reduced locations without duplicates (same uri and range), in the given order. */
export function uniqueLocations(locations: readonly (HostLocation | HostLocationLink)[]): HostLocation[] {
  const seen = new Set<string>();
  const out: HostLocation[] = [];
  for (const location of locations.map(reduceLocation)) {
    const key = `${location.uri}#${rangeKey(location.range)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(location);
  }
  return out;
}

/** `references` without `declarations` (for `includeDeclaration: false`): a location equal to a declaration's, or containing it, is dropped. */
export function withoutDeclarations(references: readonly HostLocation[], declarations: readonly HostLocation[]): HostLocation[] {
  const contains = (outer: Range, inner: Range) => before(outer.start, inner.start) && before(inner.end, outer.end);
  return references.filter((reference) => !declarations.some((declaration) => declaration.uri === reference.uri && contains(reference.range, declaration.range)));
}

function before(a: Position, b: Position): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

/** Hovers as Markdown: code parts fenced, parts of one hover joined by a blank line, hovers too. */
export function hoverMarkdown(hovers: readonly (readonly HostHoverPart[])[]): string {
  const blocks: string[] = [];
  for (const hover of hovers) {
    for (const part of hover) {
      const text = typeof part === 'string' ? part.trim() : part.value.trim() === '' ? '' : `\`\`\`${part.language}\n${part.value.replace(/\n+$/, '')}\n\`\`\``;
      if (text !== '' && !blocks.includes(text)) blocks.push(text);
    }
  }
  return blocks.join('\n\n');
}

// ---------------------------------------------------------------------------------------------
// The handlers

export interface EditorRequestDeps {
  host: EditorHost;
  versions: DiagnosticsVersions;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The uri as the editor spells it, or `undefined` (with a log line) for a string that is not one. */
function canonicalOf(host: EditorHost, method: string, uri: string): string | undefined {
  try {
    return host.canonical(uri);
  } catch {
    host.warn(`dsh: ${method}: not a uri: ${uri}`);
    return undefined;
  }
}

/** The editor's uri of a result back in the server's spelling when it is the document asked about. */
function spelled(uri: string, asked: { canonical: string; wire: string } | undefined): string {
  return asked !== undefined && uri === asked.canonical ? asked.wire : uri;
}

async function ensureLoaded(host: EditorHost, uri: string, method: string): Promise<boolean> {
  if (host.version(uri) !== undefined) return true;
  try {
    await host.load(uri);
    return true;
  } catch (error) {
    host.warn(`dsh: ${method}: cannot open ${uri}: ${describe(error)}`);
    return false;
  }
}

/** `dsh/editor/diagnostics`. */
export async function editorDiagnostics(params: unknown, deps: EditorRequestDeps, cancel?: Cancel): Promise<EditorDiagnosticsResult> {
  const { host, versions } = deps;
  const request = parseEditorDiagnostics(params);
  const encoding = host.encoding();
  if (request === undefined) {
    host.warn('dsh: dsh/editor/diagnostics: malformed params');
    return { items: [] };
  }
  if (request.uri === undefined) {
    const items: EditorDiagnosticsItem[] = [];
    for (const [uri, diagnostics] of host.allDiagnostics()) {
      if (diagnostics.length === 0) continue;
      const lines = encoding === 'utf-16' ? undefined : await host.lines(uri);
      items.push({ uri, version: versions.reportedVersion(uri), complete: true, diagnostics: diagnostics.map((d) => wireDiagnostic(d, lines, encoding)) });
    }
    return { items };
  }
  const uri = canonicalOf(host, 'dsh/editor/diagnostics', request.uri);
  if (uri === undefined) return { items: [] };
  const timeoutMs = request.timeoutMs ?? 0;
  let complete = true;
  if (host.version(uri) === undefined) {
    // Not open: open it (its language servers see it then) and give them until the deadline
    // (FIRST_REPORT_MS without one) for a first report.
    if (!(await ensureLoaded(host, uri, 'dsh/editor/diagnostics'))) return { items: [{ uri: request.uri, version: null, complete: false, diagnostics: [] }] };
    const current = host.version(uri);
    if (current !== undefined) versions.documentVersion(uri, current);
    if (request.version === undefined) complete = await versions.nextReport(uri, timeoutMs > 0 ? timeoutMs : FIRST_REPORT_MS, cancel);
  }
  if (request.version !== undefined) complete = await versions.waitFor(uri, request.version, timeoutMs, cancel);
  const lines = encoding === 'utf-16' ? undefined : await host.lines(uri);
  const diagnostics = host.diagnostics(uri).map((d) => wireDiagnostic(d, lines, encoding));
  return { items: [{ uri: request.uri, version: versions.reportedVersion(uri), complete, diagnostics }] };
}

/** The request's document and position (in UTF-16), the document loaded; `undefined` when it cannot be. */
async function target(params: unknown, host: EditorHost, method: string) {
  const request = parseEditorPosition(params);
  if (request === undefined) {
    host.warn(`dsh: ${method}: malformed params`);
    return undefined;
  }
  const uri = canonicalOf(host, method, request.textDocument.uri);
  if (uri === undefined || !(await ensureLoaded(host, uri, method))) return undefined;
  const encoding = host.encoding();
  let position = request.position;
  if (encoding !== 'utf-16') {
    const lines = await host.lines(uri);
    if (lines !== undefined) position = convertPosition(position, lines, encoding, 'utf-16');
  }
  return { request, uri, position, asked: { canonical: uri, wire: request.textDocument.uri } };
}

/** Locations on the wire: columns in the negotiated encoding, the asked document in the server's spelling. */
async function wireLocations(host: EditorHost, locations: readonly HostLocation[], asked?: { canonical: string; wire: string }): Promise<WireLocation[]> {
  const encoding = host.encoding();
  const linesOf = new Map<string, LineTexts | undefined>();
  const out: WireLocation[] = [];
  for (const location of locations) {
    let range = location.range;
    if (encoding !== 'utf-16') {
      if (!linesOf.has(location.uri)) linesOf.set(location.uri, await host.lines(location.uri));
      const lines = linesOf.get(location.uri);
      if (lines !== undefined) range = convertRange(range, lines, 'utf-16', encoding);
    }
    out.push({ uri: spelled(location.uri, asked), range });
  }
  return out;
}

async function provided<T>(host: EditorHost, method: string, run: () => Promise<T[]>): Promise<T[]> {
  try {
    return (await run()) ?? [];
  } catch (error) {
    host.warn(`dsh: ${method}: the language servers failed: ${describe(error)}`);
    return [];
  }
}

/** `dsh/editor/definition`. */
export async function editorDefinition(params: unknown, deps: EditorRequestDeps): Promise<EditorLocationsResult> {
  const { host } = deps;
  const at = await target(params, host, 'dsh/editor/definition');
  if (at === undefined) return { locations: [] };
  const found = await provided(host, 'dsh/editor/definition', () => host.definitions(at.uri, at.position));
  return { locations: await wireLocations(host, uniqueLocations(found), at.asked) };
}

/** `dsh/editor/references` (`includeDeclaration: false` drops the locations of the definitions). */
export async function editorReferences(params: unknown, deps: EditorRequestDeps): Promise<EditorLocationsResult> {
  const { host } = deps;
  const at = await target(params, host, 'dsh/editor/references');
  if (at === undefined) return { locations: [] };
  let found = uniqueLocations(await provided(host, 'dsh/editor/references', () => host.references(at.uri, at.position)));
  if (at.request.includeDeclaration === false) {
    const declarations = uniqueLocations(await provided(host, 'dsh/editor/references', () => host.definitions(at.uri, at.position)));
    found = withoutDeclarations(found, declarations);
  }
  return { locations: await wireLocations(host, found, at.asked) };
}

/** `dsh/editor/symbols`. */
export async function editorSymbols(params: unknown, deps: EditorRequestDeps): Promise<EditorSymbolsResult> {
  const { host } = deps;
  const request = parseEditorSymbols(params);
  if (request === undefined) {
    host.warn('dsh: dsh/editor/symbols: malformed params');
    return { symbols: [] };
  }
  const found = await provided(host, 'dsh/editor/symbols', () => host.workspaceSymbols(request.query));
  const encoding = host.encoding();
  const symbols: WireSymbol[] = [];
  const seen = new Set<string>();
  for (const symbol of found) {
    const key = `${symbol.name}#${symbol.kind}#${symbol.uri}#${symbol.range === undefined ? '' : rangeKey(symbol.range)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let range = symbol.range;
    if (range !== undefined && encoding !== 'utf-16') {
      const lines = await host.lines(symbol.uri);
      if (lines !== undefined) range = convertRange(range, lines, 'utf-16', encoding);
    }
    const wire: WireSymbol = { name: symbol.name, kind: symbol.kind + 1, location: range === undefined ? { uri: symbol.uri } : { uri: symbol.uri, range } };
    if (symbol.containerName !== undefined && symbol.containerName !== '') wire.containerName = symbol.containerName;
    symbols.push(wire);
  }
  return { symbols };
}

/** `dsh/editor/hover`. */
export async function editorHover(params: unknown, deps: EditorRequestDeps): Promise<EditorHoverResult> {
  const { host } = deps;
  const at = await target(params, host, 'dsh/editor/hover');
  if (at === undefined) return { contents: '' };
  const hovers = await provided(host, 'dsh/editor/hover', () => host.hovers(at.uri, at.position));
  return { contents: hoverMarkdown(hovers) };
}

/** The five `dsh/editor/*` handlers a connection answers with (`cancel`, the request's token, ends a diagnostics wait). */
export interface EditorHandlers {
  diagnostics(params: unknown, cancel?: Cancel): Promise<EditorDiagnosticsResult>;
  definition(params: unknown, cancel?: Cancel): Promise<EditorLocationsResult>;
  references(params: unknown, cancel?: Cancel): Promise<EditorLocationsResult>;
  symbols(params: unknown, cancel?: Cancel): Promise<EditorSymbolsResult>;
  hover(params: unknown, cancel?: Cancel): Promise<EditorHoverResult>;
}

/** Each `dsh/editor/*` method with the handler of `EditorHandlers` that answers it. */
export const EDITOR_REQUESTS: readonly (readonly [string, keyof EditorHandlers])[] = [
  [Methods.editorDiagnostics, 'diagnostics'],
  [Methods.editorDefinition, 'definition'],
  [Methods.editorReferences, 'references'],
  [Methods.editorSymbols, 'symbols'],
  [Methods.editorHover, 'hover'],
];

/** The handlers above over one host and version clock. */
export function editorHandlers(deps: EditorRequestDeps): EditorHandlers {
  return {
    diagnostics: (params, cancel) => editorDiagnostics(params, deps, cancel),
    definition: (params) => editorDefinition(params, deps),
    references: (params) => editorReferences(params, deps),
    symbols: (params) => editorSymbols(params, deps),
    hover: (params) => editorHover(params, deps),
  };
}
