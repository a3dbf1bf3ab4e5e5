/**
 * End-to-end harness: the real `dsh-lsp` driven over stdio with the protocol libraries
 * vscode-languageclient itself uses, against the scripted OpenAI-compatible model server.
 *
 * - `completion()` builds one scripted streamed answer (the JSON form read by
 *   `python -m dsh_lsp.testing.scripted_server`, as `dsh_lsp.testing.openai_chunks` does).
 * - `ScriptedModel` runs that server in its own process and reads back what it was asked.
 * - `Editor` plays VS Code's side of text sync and `workspace/applyEdit`: versioned
 *   `TextDocumentEdit`s are rejected (`applied: false`) when the version is stale, exactly as
 *   VS Code does, and an `onApplyEdit` hook lets a test "type" before the edit lands. It
 *   answers `dsh/saveDocuments` as the extension does: each listed open document is written
 *   to disk (followed by `didSave`) and named in `saved`.
 * - `LanguageServers` plays the editor's *other* language servers: a JSON checker that reports
 *   each version of an open `.json` document shortly after it changes (as VS Code's JSON server
 *   does), and definitions/references/symbols/hovers a test sets. The editor answers the
 *   `dsh/editor/*` requests with the extension's own handlers (`src/core/editorRequests.ts`)
 *   over an `EditorHost` built on these documents, so the version rule is the extension's.
 * - `DshServer` spawns `.venv/bin/dsh-lsp --stdio`, initializes it with VS Code-like
 *   capabilities plus `experimental.dsh`, and records every `dsh/session/update`.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMessageConnection, type MessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import {
  type ApplyWorkspaceEditParams,
  ApplyWorkspaceEditRequest,
  type ApplyWorkspaceEditResult,
  ConfigurationRequest,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DidSaveTextDocumentNotification,
  InitializedNotification,
  InitializeRequest,
  type TextDocumentEdit,
  type TextEdit,
} from 'vscode-languageserver-protocol';
import {
  type Cancel,
  DiagnosticsVersions,
  EDITOR_REQUESTS,
  editorHandlers,
  type EditorHost,
  type HostDiagnostic,
  type HostHoverPart,
  type HostLocation,
  type HostLocationLink,
  type HostSymbol,
  timerSchedule,
} from '../../src/core/editorRequests';
import { CLIENT_CAPABILITY } from '../../src/core/protocol';
import { VENV_BIN } from '../paths';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- decoded JSON in tests

// ---------------------------------------------------------------------------------------------
// Scripted model answers

export interface ToolCallSpec {
  id: string;
  name: string;
  arguments: Json;
}

function payload(delta: Json, finishReason: string | null = null, usage?: Json): string {
  const chunk: Json = { id: 'chatcmpl-scripted', object: 'chat.completion.chunk', model: 'scripted', choices: [{ index: 0, delta, finish_reason: finishReason }] };
  if (usage) chunk.usage = usage;
  return JSON.stringify(chunk);
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

export function wireUsage(prompt: number, completion: number, cached = 0): Json {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_cache_hit_tokens: cached,
    prompt_cache_miss_tokens: prompt - cached,
    prompt_tokens_details: { cached_tokens: cached },
  };
}

/** One streamed answer; `stall` leaves the stream open (until the client hangs up) at the end. */
export function completion(options: {
  reasoning?: string;
  text?: string;
  toolCalls?: ToolCallSpec[];
  usage?: Json;
  pieceSize?: number;
  delay?: number;
  stall?: boolean;
}): Json {
  const steps: Json[] = [];
  const size = options.pieceSize ?? 4;
  if (options.reasoning !== undefined) {
    steps.push({ data: payload({ role: 'assistant', content: null, reasoning_content: '' }) });
    for (const piece of pieces(options.reasoning, size)) steps.push({ data: payload({ content: null, reasoning_content: piece }) });
  }
  if (options.text !== undefined) for (const piece of pieces(options.text, size)) steps.push({ data: payload({ content: piece }) });
  (options.toolCalls ?? []).forEach((call, index) => {
    steps.push({ data: payload({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }) });
    for (const piece of pieces(JSON.stringify(call.arguments), 8)) {
      steps.push({ data: payload({ tool_calls: [{ index, function: { arguments: piece } }] }) });
    }
  });
  if (options.stall) {
    const paced = options.delay ? steps.flatMap((step) => [step, { delay: options.delay }]) : steps;
    return { stream: [...paced, { stall: null }], headers: {} };
  }
  const reason = options.toolCalls?.length ? 'tool_calls' : 'stop';
  steps.push({ data: payload({ content: '' }, reason, options.usage ?? wireUsage(50, 10)) });
  steps.push({ data: '[DONE]' });
  const paced = options.delay ? steps.flatMap((step) => [step, { delay: options.delay }]) : steps;
  return { stream: paced, headers: {} };
}

// ---------------------------------------------------------------------------------------------
// The scripted model server process

export class ScriptedModel {
  private constructor(
    private readonly proc: ChildProcess,
    readonly port: number,
    private readonly recordFile: string,
  ) {}

  static async start(dir: string, responses: Json[]): Promise<ScriptedModel> {
    const script = path.join(dir, `script-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(script, JSON.stringify({ responses }));
    const record = `${script}.requests.jsonl`;
    const proc = spawn(path.join(VENV_BIN, 'python'), ['-m', 'dsh_lsp.testing.scripted_server', '--script', script, '--record', record], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const port = await new Promise<number>((resolve, reject) => {
      let seen = '';
      proc.stderr?.on('data', (data: Buffer) => {
        seen += data.toString();
        const match = /listening on port (\d+)/.exec(seen);
        if (match) resolve(Number(match[1]));
      });
      proc.on('exit', (code) => reject(new Error(`scripted model server exited (${code}): ${seen}`)));
    });
    return new ScriptedModel(proc, port, record);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The request bodies the model server received, in order. */
  requests(): Json[] {
    try {
      return readFileSync(this.recordFile, 'utf8')
        .split('\n')
        .filter((line) => line.trim())
        .map((line) => (JSON.parse(line) as Json).body as Json);
    } catch {
      return [];
    }
  }

  close(): void {
    this.proc.kill('SIGTERM');
  }
}

// ---------------------------------------------------------------------------------------------
// The editor side: documents, versions and applyEdit as VS Code does them

export interface OpenDocument {
  uri: string;
  text: string;
  version: number;
}

function offsetAt(text: string, position: { line: number; character: number }): number {
  let offset = 0;
  for (let line = 0; line < position.line; line++) {
    const next = text.indexOf('\n', offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  return Math.min(offset + position.character, text.length);
}

export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = edits
    .map((edit) => ({ start: offsetAt(text, edit.range.start), end: offsetAt(text, edit.range.end), newText: edit.newText }))
    .sort((a, b) => b.start - a.start);
  let out = text;
  for (const edit of sorted) out = out.slice(0, edit.start) + edit.newText + out.slice(edit.end);
  return out;
}

/** Where `JSON.parse` fails in `text`, as a diagnostic (VS Code numbering), or none. */
export function jsonProblems(text: string): HostDiagnostic[] {
  try {
    JSON.parse(text);
    return [];
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = /position (\d+)/.exec(message);
    const offset = at ? Number(at[1]) : 0;
    const before = text.slice(0, offset);
    const line = before.split('\n').length - 1;
    const character = offset - (before.lastIndexOf('\n') + 1);
    return [{ range: { start: { line, character }, end: { line, character: character + 1 } }, severity: 0, source: 'json', message: message.replace(/ in JSON at position \d+.*$/, '') }];
  }
}

/** The editor's other language servers, as the tests need them. */
export class LanguageServers {
  readonly diagnostics = new Map<string, HostDiagnostic[]>();
  definitions: (HostLocation | HostLocationLink)[] = [];
  references: HostLocation[] = [];
  symbols: HostSymbol[] = [];
  hovers: HostHoverPart[][] = [];
  /** Uris whose reports are held back (a slow language server). */
  readonly silent = new Set<string>();
  /** Every (uri, version) the JSON checker reported on, in order. */
  readonly reports: { uri: string; version: number }[] = [];

  constructor(private readonly versions: DiagnosticsVersions) {}

  /** A document changed: check it on the next turn of the event loop, like a real server would. */
  changed(document: OpenDocument): void {
    if (!document.uri.endsWith('.json') || this.silent.has(document.uri)) return;
    const { uri, version } = document;
    setImmediate(() => {
      if (document.version !== version) return; // a newer version is on its way
      this.diagnostics.set(uri, jsonProblems(document.text));
      this.reports.push({ uri, version });
      this.versions.diagnosticsChanged(uri);
    });
  }
}

export class Editor {
  readonly documents = new Map<string, OpenDocument>();
  readonly versions = new DiagnosticsVersions(timerSchedule);
  readonly languageServers = new LanguageServers(this.versions);
  /** Every `dsh/editor/*` request the server sent, with the answer given. */
  readonly editorRequests: { method: string; params: Json; answer: unknown }[] = [];
  readonly applyEdits: ApplyWorkspaceEditParams[] = [];
  /** Every `dsh/saveDocuments` the server sent, with the answer given. */
  readonly saveRequests: { uris: string[]; saved: string[] }[] = [];
  private saveWaiters: ((request: { uris: string[]; saved: string[] }) => void)[] = [];
  /** Runs before an applyEdit is checked (a test "types" here to make it stale). */
  onApplyEdit: ((params: ApplyWorkspaceEditParams) => void) | undefined;
  connection: MessageConnection | undefined;

  open(file: string, text: string, languageId = 'python'): OpenDocument {
    const document = { uri: pathToFileURL(file).toString(), text, version: 1 };
    this.documents.set(document.uri, document);
    void this.connection?.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: document.uri, languageId, version: document.version, text },
    });
    this.reached(document);
    return document;
  }

  /** Replace `oldText` with `newText` in the buffer (unsaved), as a user typing would. */
  type(uri: string, oldText: string, newText: string): void {
    const document = this.documents.get(uri);
    if (document === undefined) throw new Error(`not open: ${uri}`);
    const at = document.text.indexOf(oldText);
    if (at < 0) throw new Error(`"${oldText}" is not in ${uri}`);
    const before = document.text.slice(0, at);
    const line = before.split('\n').length - 1;
    const character = at - (before.lastIndexOf('\n') + 1);
    const endBefore = document.text.slice(0, at + oldText.length);
    const endLine = endBefore.split('\n').length - 1;
    const endCharacter = at + oldText.length - (endBefore.lastIndexOf('\n') + 1);
    document.text = document.text.slice(0, at) + newText + document.text.slice(at + oldText.length);
    document.version += 1;
    void this.connection?.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: document.version },
      contentChanges: [{ range: { start: { line, character }, end: { line: endLine, character: endCharacter } }, text: newText }],
    });
    this.reached(document);
  }

  /** The document is at a new version: the version clock and the language servers hear of it. */
  private reached(document: OpenDocument): void {
    this.versions.documentVersion(document.uri, document.version);
    this.languageServers.changed(document);
  }

  /** The host the extension's `dsh/editor/*` handlers read this editor through. */
  host(): EditorHost {
    const servers = this.languageServers;
    const linesOf = (text: string) => {
      const lines = text.split('\n');
      return (n: number) => lines[n];
    };
    return {
      canonical: (uri) => new URL(uri).href,
      version: (uri) => this.documents.get(uri)?.version,
      load: async (uri) => this.open(fileURLToPath(uri), readFileSync(fileURLToPath(uri), 'utf8'), uri.endsWith('.json') ? 'json' : 'python').version,
      lines: async (uri) => {
        const open = this.documents.get(uri);
        if (open !== undefined) return linesOf(open.text);
        try {
          return linesOf(readFileSync(fileURLToPath(uri), 'utf8'));
        } catch {
          return undefined;
        }
      },
      diagnostics: (uri) => servers.diagnostics.get(uri) ?? [],
      allDiagnostics: () => [...servers.diagnostics.entries()],
      definitions: async () => servers.definitions,
      references: async () => servers.references,
      workspaceSymbols: async () => servers.symbols,
      hovers: async () => servers.hovers,
      encoding: () => 'utf-16',
      warn: () => undefined,
    };
  }

  /** Answer one `dsh/editor/*` request with the extension's handler; record it. */
  async answerEditor(method: string, params: Json, cancel?: Cancel): Promise<unknown> {
    const name = EDITOR_REQUESTS.find(([known]) => known === method)?.[1];
    const answer = name === undefined ? null : await editorHandlers({ host: this.host(), versions: this.versions })[name](params, cancel);
    this.editorRequests.push({ method, params, answer });
    return answer;
  }

  /** Resolves with the next `dsh/saveDocuments` request once it has been answered; rejects after `timeoutMs`. */
  nextSave(timeoutMs = 20_000): Promise<{ uris: string[]; saved: string[] }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for dsh/saveDocuments')), timeoutMs);
      this.saveWaiters.push((request) => {
        clearTimeout(timer);
        resolve(request);
      });
    });
  }

  /** `dsh/saveDocuments`: write each listed open document, then `didSave`; unknown uris are left out. */
  handleSaveDocuments(params: { uris: string[] }): { saved: string[] } {
    const saved: string[] = [];
    for (const uri of params.uris) {
      const document = this.documents.get(uri);
      if (document === undefined) continue;
      writeFileSync(fileURLToPath(uri), document.text);
      void this.connection?.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri } });
      saved.push(uri);
    }
    const request = { uris: params.uris, saved };
    this.saveRequests.push(request);
    for (const waiter of this.saveWaiters.splice(0)) waiter(request);
    return { saved };
  }

  handleApplyEdit(params: ApplyWorkspaceEditParams): ApplyWorkspaceEditResult {
    this.applyEdits.push(params);
    this.onApplyEdit?.(params);
    const changes = params.edit.documentChanges ?? [];
    const textEdits = changes.filter((change): change is TextDocumentEdit => 'textDocument' in change);
    for (const change of textEdits) {
      const document = this.documents.get(change.textDocument.uri);
      if (document !== undefined && change.textDocument.version !== null && change.textDocument.version !== document.version) {
        return { applied: false, failureReason: `version mismatch: edit for v${change.textDocument.version}, document at v${document.version}` };
      }
    }
    for (const change of textEdits) {
      const document = this.documents.get(change.textDocument.uri);
      if (document === undefined) return { applied: false, failureReason: 'the test editor only edits open documents' };
      const before = document.text;
      document.text = applyTextEdits(before, change.edits as TextEdit[]);
      document.version += 1;
      void this.connection?.sendNotification(DidChangeTextDocumentNotification.type, {
        textDocument: { uri: document.uri, version: document.version },
        contentChanges: [{ text: document.text }],
      });
      this.reached(document);
    }
    return { applied: true };
  }
}

// ---------------------------------------------------------------------------------------------
// The server process and its connection

export interface UpdateRecord {
  sessionId: string;
  update: Json;
}

export type PermissionAnswer = (params: Json, token: { isCancellationRequested: boolean; onCancellationRequested(cb: () => void): unknown }) => Promise<Json> | Json;

export class DshServer {
  readonly updates: UpdateRecord[] = [];
  readonly permissionRequests: Json[] = [];
  readonly withdrawnPermissions: Json[] = [];
  readonly messages: Json[] = [];
  stderr = '';
  /** How the next permission requests are answered (default: allow once). */
  answerPermission: PermissionAnswer = () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } });
  private waiters: { predicate(u: UpdateRecord): boolean; resolve(u: UpdateRecord): void }[] = [];
  private permissionWaiters: ((params: Json) => void)[] = [];
  private exited: Promise<number | null>;

  private constructor(
    readonly proc: ChildProcess,
    readonly connection: MessageConnection,
    readonly editor: Editor,
    private readonly settings: Json,
  ) {
    this.exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
    proc.stderr?.on('data', (data: Buffer) => {
      this.stderr += data.toString();
    });
    connection.onNotification('dsh/session/update', (params: UpdateRecord) => {
      this.updates.push(params);
      for (const waiter of [...this.waiters]) {
        if (waiter.predicate(params)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(params);
        }
      }
    });
    connection.onRequest('dsh/requestPermission', async (params: Json, token) => {
      this.permissionRequests.push(params);
      for (const waiter of this.permissionWaiters.splice(0)) waiter(params);
      token.onCancellationRequested(() => this.withdrawnPermissions.push(params));
      return this.answerPermission(params, token);
    });
    connection.onRequest(ApplyWorkspaceEditRequest.type, (params) => editor.handleApplyEdit(params));
    connection.onRequest('dsh/saveDocuments', (params: { uris: string[] }) => editor.handleSaveDocuments(params));
    for (const [method] of EDITOR_REQUESTS) connection.onRequest(method, (params: Json, token) => editor.answerEditor(method, params, token));
    connection.onRequest(ConfigurationRequest.type, (params) => params.items.map((item) => (item.section === 'dsh' ? this.settings : null)));
    connection.onRequest('window/workDoneProgress/create', () => null);
    connection.onRequest('client/registerCapability', () => null);
    connection.onRequest('window/showMessageRequest', (params: Json) => {
      this.messages.push({ method: 'window/showMessageRequest', params });
      return null;
    });
    connection.onNotification('window/showMessage', (params: Json) => void this.messages.push({ method: 'window/showMessage', params }));
    connection.onNotification('window/logMessage', () => undefined);
    connection.onNotification('$/progress', () => undefined);
    editor.connection = connection;
  }

  /** Spawn `.venv/bin/dsh-lsp --stdio` in `workspace` and initialize it. */
  /** `editor: false` initializes without `experimental.dsh.editor` (a client that lends no language servers). */
  static async start(options: { workspace: string; stateDir: string; model: ScriptedModel; settings?: Json; editor?: boolean }): Promise<DshServer> {
    const settings: Json = { sessionDir: path.join(options.stateDir, 'sessions'), ...(options.settings ?? {}) };
    const proc = spawn(path.join(VENV_BIN, 'dsh-lsp'), ['--log-level', 'info', '--stdio'], {
      cwd: options.workspace,
      env: {
        ...process.env,
        DEEPSEEK_BASE_URL: options.model.baseUrl,
        DEEPSEEK_API_KEY: 'scripted-key',
        XDG_STATE_HOME: options.stateDir,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    if (!proc.stdout || !proc.stdin) throw new Error('no stdio');
    const connection = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
    const server = new DshServer(proc, connection, new Editor(), settings);
    connection.listen();
    const rootUri = pathToFileURL(options.workspace).toString();
    await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      clientInfo: { name: 'Visual Studio Code', version: '1.91.0' },
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: path.basename(options.workspace) }],
      initializationOptions: settings,
      capabilities: {
        general: { positionEncodings: ['utf-16'] },
        workspace: {
          applyEdit: true,
          configuration: true,
          workspaceFolders: true,
          workspaceEdit: {
            documentChanges: true,
            resourceOperations: ['create', 'rename', 'delete'],
            failureHandling: 'textOnlyTransactional',
            normalizesLineEndings: true,
            changeAnnotationSupport: { groupsOnLabel: true },
          },
          didChangeConfiguration: { dynamicRegistration: true },
          executeCommand: { dynamicRegistration: true },
        },
        textDocument: { synchronization: { dynamicRegistration: true, didSave: true, willSave: true } },
        window: { workDoneProgress: true, showMessage: { messageActionItem: { additionalPropertiesSupport: true } }, showDocument: { support: true } },
        experimental: { dsh: options.editor === false ? { version: 1, sessionUpdates: true, permissions: true, saveDocuments: true } : { ...CLIENT_CAPABILITY } },
      },
    });
    await connection.sendNotification(InitializedNotification.type, {});
    return server;
  }

  request<R = Json>(method: string, params: unknown, token?: import('vscode-jsonrpc').CancellationToken): Promise<R> {
    return token ? this.connection.sendRequest<R>(method, params, token) : this.connection.sendRequest<R>(method, params);
  }

  /** Resolve with the first update (already received or future) matching `predicate`. */
  waitForUpdate(predicate: (u: UpdateRecord) => boolean, timeoutMs = 20_000): Promise<UpdateRecord> {
    const found = this.updates.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for an update; stderr:\n${this.stderr.slice(-3000)}`)), timeoutMs);
      this.waiters.push({
        predicate,
        resolve: (u) => {
          clearTimeout(timer);
          resolve(u);
        },
      });
    });
  }

  nextPermission(): Promise<Json> {
    return new Promise((resolve) => this.permissionWaiters.push(resolve));
  }

  updatesOf(sessionId: string, kind?: string): Json[] {
    return this.updates.filter((u) => u.sessionId === sessionId && (kind === undefined || u.update.kind === kind)).map((u) => u.update);
  }

  textOf(sessionId: string, kind = 'agent_message_chunk'): string {
    return this.updatesOf(sessionId, kind)
      .map((u) => String(u.text))
      .join('');
  }

  /** `shutdown` + `exit`; resolves with the exit code. */
  async stop(): Promise<number | null> {
    try {
      await this.connection.sendRequest('shutdown');
      await this.connection.sendNotification('exit');
    } catch {
      this.proc.kill('SIGTERM');
    }
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
    const code = await this.exited;
    clearTimeout(timer);
    this.connection.dispose();
    return code;
  }
}

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

// ---------------------------------------------------------------------------------------------
// A test file's worlds: workspace + scripted model + server

/** Why the end-to-end tests skip (no `.venv/bin/dsh-lsp`), or false when they can run. */
export const skipWithoutServer: string | false = existsSync(path.join(VENV_BIN, 'dsh-lsp')) ? false : 'no .venv/bin/dsh-lsp: install the repository venv first';

export interface World {
  workspace: string;
  stateDir: string;
  model: ScriptedModel;
  server: DshServer;
}

export interface WorldOptions {
  /** The scripted model's answers, or a function of the workspace path (tool arguments carry absolute paths). */
  responses: Json[] | ((workspace: string) => Json[]);
  settings?: Json;
  /** Files written into the workspace first, by name. */
  files?: Record<string, string>;
  /** Whether the editor advertises `experimental.dsh.editor` (see `DshServer.start`). */
  editor?: boolean;
}

export interface Worlds {
  /** A fresh workspace with `files`, a scripted model answering `responses` and a server on them. */
  make(options: WorldOptions): Promise<World>;
  /** Run `cleanup` after the file's tests (before the worlds' folder is removed). */
  onCleanup(cleanup: () => unknown): void;
}

/**
 * The worlds of one test file; call it at the file's top level. It registers the file's `before`
 * and `after` hooks: a temporary folder named `prefix…` holds every world, and after the tests
 * every server and model is closed (last made first) and the folder removed (kept when
 * `DSH_TEST_DEBUG` is set). `make` raises what `ScriptedModel.start` / `DshServer.start` raise.
 */
export function worlds(prefix: string): Worlds {
  let root = '';
  let counter = 0;
  const cleanups: (() => unknown)[] = [];
  before(() => {
    root = tempDir(prefix);
  });
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    if (!process.env.DSH_TEST_DEBUG) rmSync(root, { recursive: true, force: true });
  });
  return {
    onCleanup(cleanup) {
      cleanups.push(cleanup);
    },
    async make({ responses, settings = {}, files = {}, editor }) {
      const base = path.join(root, `w${++counter}`);
      const workspace = path.join(base, 'workspace');
      const stateDir = path.join(base, 'state');
      mkdirSync(workspace, { recursive: true });
      mkdirSync(stateDir, { recursive: true });
      for (const [name, text] of Object.entries(files)) writeFileSync(path.join(workspace, name), text);
      const model = await ScriptedModel.start(base, typeof responses === 'function' ? responses(workspace) : responses);
      cleanups.push(() => model.close());
      const server = await DshServer.start({ workspace, stateDir, model, settings, editor });
      cleanups.push(() => (server.proc.exitCode === null ? server.stop() : undefined));
      return { workspace, stateDir, model, server };
    },
  };
}
