/**
 * A stand-in `vscode` module for loading the bundled extension in plain Node (test helper).
 *
 * The parts the extension and vscode-languageclient really use behave (events, cancellation,
 * URIs, configuration, commands, webview views, status bar items); every other name resolves
 * to a "universal" value that can be called, constructed and indexed, so module-load-time
 * references (`class X extends vscode.CompletionItem`) work. `installVscodeStub` hooks
 * `Module._load` so `require('vscode')` returns the stub, and records what was registered.
 */

import { readFileSync } from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import { EXTENSION_ROOT } from '../paths';

/** Every name `vscode` exports, read from @types/vscode (the bundle copies own keys only). */
function apiNames(): string[] {
  const dts = readFileSync(path.join(EXTENSION_ROOT, 'node_modules', '@types', 'vscode', 'index.d.ts'), 'utf8');
  const names = new Set<string>();
  for (const match of dts.matchAll(/^\t(?:export )?(?:declare )?(?:class|enum|namespace|function|const|let) ([A-Za-z_]\w*)/gm)) {
    if (match[1] !== undefined) names.add(match[1]);
  }
  return [...names];
}

type Listener<T> = (value: T) => unknown;

export class EventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  readonly event = (listener: Listener<T>, thisArg?: unknown) => {
    const bound: Listener<T> = (value) => listener.call(thisArg, value);
    this.listeners.add(bound);
    return new Disposable(() => this.listeners.delete(bound));
  };
  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export class Disposable {
  constructor(private readonly callback: () => unknown) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((item) => item.dispose()));
  }
  dispose(): void {
    this.callback();
  }
}

class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  private cancelled = false;
  readonly token: { readonly isCancellationRequested: boolean; onCancellationRequested: EventEmitter<void>['event'] };
  constructor() {
    const isCancelled = () => this.cancelled;
    this.token = {
      get isCancellationRequested() {
        return isCancelled();
      },
      onCancellationRequested: this.emitter.event,
    };
  }
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.emitter.fire();
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

class Uri {
  constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}
  static file(fsPath: string): Uri {
    return new Uri('file', '', fsPath, '', '');
  }
  static parse(value: string): Uri {
    const match = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(value);
    if (!match) return Uri.file(value);
    return new Uri(match[1] ?? 'file', match[2] ?? '', decodeURIComponent(match[3] ?? ''), match[4] ?? '', match[5] ?? '');
  }
  static from(parts: { scheme: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(parts.scheme, parts.authority ?? '', parts.path ?? '', parts.query ?? '', parts.fragment ?? '');
  }
  static joinPath(base: Uri, ...segments: string[]): Uri {
    return new Uri(base.scheme, base.authority, path.posix.join(base.path, ...segments), base.query, base.fragment);
  }
  get fsPath(): string {
    return this.path;
  }
  with(change: Partial<{ scheme: string; path: string; query: string }>): Uri {
    return new Uri(change.scheme ?? this.scheme, this.authority, change.path ?? this.path, change.query ?? this.query, this.fragment);
  }
  toString(): string {
    return `${this.scheme}://${this.authority}${this.path}${this.query ? `?${this.query}` : ''}`;
  }
  toJSON(): unknown {
    return { scheme: this.scheme, path: this.path };
  }
}

class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}
class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: number | Position, b: number | Position, c?: number, d?: number) {
    this.start = typeof a === 'number' ? new Position(a, b as number) : a;
    this.end = typeof a === 'number' ? new Position(c ?? 0, d ?? 0) : (b as Position);
  }
}

/** A value that is callable, constructible and has every property (for unused API surface). */
function universal(name: string): unknown {
  const fn = function () {
    return undefined;
  };
  return new Proxy(fn, {
    get(_target, prop) {
      if (prop === Symbol.toPrimitive) return () => 0;
      if (prop === 'then') return undefined;
      if (prop === Symbol.iterator) return undefined;
      if (prop === 'prototype') return fn.prototype;
      return universal(`${name}.${String(prop)}`);
    },
    apply: () => universal(`${name}()`),
    construct: () => universal(`new ${name}`) as object,
  });
}

export interface OutputLine {
  level: string;
  text: string;
}

export interface FakeWebview {
  posted: unknown[];
  receive(message: unknown): void;
  html: string;
  waitForPost(predicate: (message: unknown) => boolean, timeoutMs?: number): Promise<unknown>;
}

export interface StubWorld {
  vscode: Record<string, unknown>;
  config: Record<string, unknown>;
  commands: Map<string, (...args: unknown[]) => unknown>;
  executed: unknown[][];
  viewProviders: Map<string, { resolveWebviewView(view: unknown): void }>;
  contentProviders: Map<string, { provideTextDocumentContent(uri: Uri): string }>;
  statusItems: { text: string; tooltip: string; command: string }[];
  output: OutputLine[];
  messages: string[];
  configListeners: EventEmitter<{ affectsConfiguration(section: string): boolean }>;
  /** What `languages.getDiagnostics` answers (uri string → diagnostics), and its change event. */
  diagnostics: Map<string, unknown[]>;
  diagnosticsChanged: EventEmitter<{ uris: Uri[] }>;
  /** What `window.showInputBox` resolves with. */
  inputBoxAnswer: string | undefined;
  openWebview(viewId: string): FakeWebview;
  uninstall(): void;
}

export function installVscodeStub(options: { config: Record<string, unknown>; workspaceRoot: string }): StubWorld {
  const commands = new Map<string, (...args: unknown[]) => unknown>();
  const executed: unknown[][] = [];
  const viewProviders = new Map<string, { resolveWebviewView(view: unknown): void }>();
  const contentProviders = new Map<string, { provideTextDocumentContent(uri: Uri): string }>();
  const statusItems: StubWorld['statusItems'] = [];
  const output: OutputLine[] = [];
  const messages: string[] = [];
  const configListeners = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();
  const diagnostics = new Map<string, unknown[]>();
  const diagnosticsChanged = new EventEmitter<{ uris: Uri[] }>();
  const event = () => new EventEmitter<unknown>().event;

  const logChannel = (name: string) => {
    const line = (level: string) => (text: string) => output.push({ level, text: `${name}: ${text}` });
    return {
      name,
      logLevel: 2,
      onDidChangeLogLevel: event(),
      trace: line('trace'),
      debug: line('debug'),
      info: line('info'),
      warn: line('warn'),
      error: (value: unknown) => output.push({ level: 'error', text: `${name}: ${String(value)}` }),
      append: line('append'),
      appendLine: line('info'),
      replace: line('replace'),
      clear: () => undefined,
      show: () => undefined,
      hide: () => undefined,
      dispose: () => undefined,
    };
  };

  const configuration = (section?: string) => ({
    get: (key: string, fallback?: unknown) => {
      const full = section ? `${section}.${key}` : key;
      return full in options.config ? options.config[full] : fallback;
    },
    has: (key: string) => `${section}.${key}` in options.config,
    inspect: () => undefined,
    update: async () => undefined,
  });

  const root = Uri.file(options.workspaceRoot);
  const vscode: Record<string, unknown> = {
    version: '1.91.0',
    EventEmitter,
    Disposable,
    CancellationTokenSource,
    Uri,
    Position,
    Range,
    Selection: Range,
    ThemeColor: class ThemeColor {
      constructor(readonly id: string) {}
    },
    StatusBarAlignment: { Left: 1, Right: 2 },
    FileType: { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 },
    ViewColumn: { Active: -1, Beside: -2, One: 1 },
    workspace: {
      workspaceFolders: [{ uri: root, name: path.basename(options.workspaceRoot), index: 0 }],
      textDocuments: [],
      notebookDocuments: [],
      getConfiguration: configuration,
      onDidChangeConfiguration: configListeners.event,
      onDidOpenTextDocument: event(),
      onDidCloseTextDocument: event(),
      onDidChangeTextDocument: event(),
      onDidSaveTextDocument: event(),
      onWillSaveTextDocument: event(),
      onDidChangeWorkspaceFolders: event(),
      onDidOpenNotebookDocument: event(),
      onDidCloseNotebookDocument: event(),
      onDidChangeNotebookDocument: event(),
      onDidSaveNotebookDocument: event(),
      registerTextDocumentContentProvider: (scheme: string, provider: { provideTextDocumentContent(uri: Uri): string }) => {
        contentProviders.set(scheme, provider);
        return new Disposable(() => contentProviders.delete(scheme));
      },
      asRelativePath: (value: Uri | string) => {
        const p = typeof value === 'string' ? value : value.path;
        return p.startsWith(`${options.workspaceRoot}/`) ? p.slice(options.workspaceRoot.length + 1) : p;
      },
      fs: universal('workspace.fs'),
      findFiles: async () => [],
    },
    window: {
      activeTextEditor: undefined,
      visibleTextEditors: [],
      visibleNotebookEditors: [],
      tabGroups: { all: [], onDidChangeTabs: event(), onDidChangeTabGroups: event() },
      onDidChangeActiveTextEditor: event(),
      onDidChangeVisibleTextEditors: event(),
      onDidChangeVisibleNotebookEditors: event(),
      createOutputChannel: (name: string) => logChannel(name),
      createStatusBarItem: () => {
        const item = { text: '', tooltip: '', command: '', name: '', backgroundColor: undefined, show: () => undefined, hide: () => undefined, dispose: () => undefined };
        statusItems.push(item);
        return item;
      },
      registerWebviewViewProvider: (id: string, provider: { resolveWebviewView(view: unknown): void }) => {
        viewProviders.set(id, provider);
        return new Disposable(() => viewProviders.delete(id));
      },
      showInputBox: async () => world.inputBoxAnswer,
      showErrorMessage: async (message: string) => void messages.push(`error: ${message}`),
      showWarningMessage: async (message: string) => void messages.push(`warning: ${message}`),
      showInformationMessage: async (message: string) => void messages.push(`info: ${message}`),
      setStatusBarMessage: (message: string) => {
        messages.push(`status: ${message}`);
        return new Disposable(() => undefined);
      },
    },
    commands: {
      registerCommand: (id: string, run: (...args: unknown[]) => unknown) => {
        if (commands.has(id)) throw new Error(`command ${id} already registered`);
        commands.set(id, run);
        return new Disposable(() => commands.delete(id));
      },
      executeCommand: async (id: string, ...args: unknown[]) => {
        executed.push([id, ...args]);
        return commands.get(id)?.(...args);
      },
    },
    env: {
      appName: 'stub',
      language: 'en',
      machineId: 'stub',
      uiKind: 1,
      clipboard: { writeText: async (text: string) => void messages.push(`clipboard: ${text}`) },
      openExternal: async () => true,
    },
    extensions: { getExtension: () => undefined, all: [], onDidChange: event() },
    languages: {
      // Every document matches the client's selector ({scheme: file} / {scheme: untitled}).
      match: () => 10,
      getDiagnostics: (uri?: Uri) => (uri === undefined ? [...diagnostics.entries()].map(([key, list]) => [Uri.parse(key), list]) : (diagnostics.get(uri.toString()) ?? [])),
      onDidChangeDiagnostics: diagnosticsChanged.event,
      createDiagnosticCollection: (name = 'stub') => ({
        name,
        set: () => undefined,
        delete: () => undefined,
        clear: () => undefined,
        forEach: () => undefined,
        get: () => [],
        has: () => false,
        dispose: () => undefined,
      }),
    },
  };

  for (const name of apiNames()) if (!(name in vscode)) vscode[name] = universal(name);
  const stub = new Proxy(vscode, {
    get(target, prop) {
      if (typeof prop === 'string' && prop in target) return target[prop];
      if (prop === '__esModule') return false;
      return universal(String(prop));
    },
  });
  for (const key of ['workspace', 'window', 'languages', 'env']) {
    const real = (vscode[key] ?? {}) as Record<string, unknown>;
    vscode[key] = new Proxy(real, {
      get(target, prop) {
        if (typeof prop === 'string' && prop in target) return target[prop];
        return typeof prop === 'string' && prop.startsWith('onDid') ? event() : universal(`${key}.${String(prop)}`);
      },
    });
  }

  const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
  const original = loader._load;
  loader._load = function (request, parent, isMain) {
    if (request === 'vscode') return stub;
    return original.call(this, request, parent, isMain);
  };

  const openWebview = (viewId: string): FakeWebview => {
    const provider = viewProviders.get(viewId);
    if (provider === undefined) throw new Error(`no webview view provider for ${viewId}`);
    const posted: unknown[] = [];
    const waiters: { predicate(m: unknown): boolean; resolve(m: unknown): void }[] = [];
    const received = new EventEmitter<unknown>();
    const webview = {
      options: {},
      html: '',
      cspSource: 'vscode-webview://stub',
      asWebviewUri: (uri: Uri) => uri.with({ scheme: 'vscode-webview' }),
      postMessage: async (message: unknown) => {
        const copy = JSON.parse(JSON.stringify(message)) as unknown;
        posted.push(copy);
        for (const waiter of [...waiters]) {
          if (waiter.predicate(copy)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(copy);
          }
        }
        return true;
      },
      onDidReceiveMessage: received.event,
    };
    const view = { webview, visible: true, show: () => undefined, onDidDispose: event(), onDidChangeVisibility: event() };
    provider.resolveWebviewView(view);
    return {
      posted,
      get html() {
        return webview.html;
      },
      receive: (message: unknown) => received.fire(message),
      waitForPost: (predicate, timeoutMs = 10_000) =>
        new Promise((resolve, reject) => {
          const found = posted.find(predicate);
          if (found !== undefined) {
            resolve(found);
            return;
          }
          const timer = setTimeout(() => reject(new Error('timed out waiting for a webview message')), timeoutMs);
          waiters.push({
            predicate,
            resolve: (m) => {
              clearTimeout(timer);
              resolve(m);
            },
          });
        }),
    };
  };

  const world: StubWorld = {
    vscode,
    inputBoxAnswer: undefined,
    config: options.config,
    commands,
    executed,
    viewProviders,
    contentProviders,
    statusItems,
    output,
    messages,
    configListeners,
    diagnostics,
    diagnosticsChanged,
    openWebview,
    uninstall: () => {
      loader._load = original;
    },
  };
  return world;
}
