/**
 * The language-client owner: starts, stops and restarts `dsh-lsp`, and holds its state.
 *
 * One `DshClient` object owns the current `LanguageClient` and everything about its life —
 * there are no module-level variables. A crash schedules a restart through `RestartPolicy`
 * (doubling delays, giving up after repeated quick crashes); `restart()` is the manual path
 * and resets the policy. The client advertises `experimental.dsh`, sends the typed server
 * settings as `initializationOptions`, answers `workspace/configuration` for section `dsh`
 * with the same object, and routes `dsh/session/update`, `dsh/requestPermission`,
 * `dsh/saveDocuments` and the five `dsh/editor/*` requests to the handlers given at
 * construction, re-registering them on every new client.
 */

import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  type StaticFeature,
  TransportKind,
} from 'vscode-languageclient/node';
import { RestartPolicy } from './core/backoff';
import { EDITOR_REQUESTS, type EditorHandlers } from './core/editorRequests';
import { CLIENT_CAPABILITY, Methods, type PermissionResponse, type PositionEncoding, type SaveDocumentsResult } from './core/protocol';
import type { ServerLaunch } from './core/serverCommand';
import type { ServerSettings } from './core/settings';
import type { ServerState } from './core/statusModel';
import type { Clock } from './vscodeapi';

export interface ClientDeps {
  log: vscode.LogOutputChannel;
  clock: Clock;
  /** Where the server program is (re-resolved before every start). */
  resolveLaunch(): Promise<ServerLaunch>;
  serverSettings(): ServerSettings;
  /** Extra environment for the server process (the API key from secret storage, say). */
  serverEnv(): Promise<Record<string, string>>;
}

export interface ClientHandlers {
  onSessionUpdate(params: unknown): void;
  onRequestPermission(params: unknown, token: vscode.CancellationToken): Promise<PermissionResponse>;
  /** `dsh/saveDocuments`: save the listed open documents, answer the uris saved. */
  onSaveDocuments(params: unknown): Promise<SaveDocumentsResult>;
  /** The connection is gone: fail whatever waited on it. */
  onConnectionLost(reason: string): void;
  /** `dsh/editor/*`: answered from the editor's other language servers. */
  editor: EditorHandlers;
}

class DshCapabilityFeature implements StaticFeature {
  fillClientCapabilities(capabilities: { experimental?: unknown }): void {
    const experimental = (typeof capabilities.experimental === 'object' && capabilities.experimental) || {};
    capabilities.experimental = { ...experimental, dsh: { ...CLIENT_CAPABILITY } };
  }
  getState(): { kind: 'static' } {
    return { kind: 'static' };
  }
  initialize(): void {}
  clear(): void {}
}

export class ServerUnavailableError extends Error {}

export class DshClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private generation = 0;
  private stateValue: ServerState = { kind: 'stopped' };
  private readonly policy = new RestartPolicy();
  private restartTimer: vscode.Disposable | undefined;
  private ready: Promise<LanguageClient> | undefined;
  private disposed = false;
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  /** Fires on every state change. */
  readonly onDidChangeState = this.stateEmitter.event;

  constructor(
    private readonly deps: ClientDeps,
    private readonly handlers: ClientHandlers,
  ) {}

  get state(): ServerState {
    return this.stateValue;
  }

  private setState(state: ServerState): void {
    this.stateValue = state;
    this.stateEmitter.fire(state);
  }

  /** Start the server unless it runs or is starting; resolves when it is ready or has failed. */
  async start(): Promise<void> {
    if (this.disposed || this.ready !== undefined) return;
    this.cancelRestartTimer();
    this.ready = this.launch(++this.generation);
    await this.ready.then(
      () => undefined,
      () => undefined,
    );
  }

  /** Stop the server and forget pending restarts; resolves when the process is gone. */
  async stop(): Promise<void> {
    this.cancelRestartTimer();
    this.generation++;
    const client = this.client;
    this.client = undefined;
    this.ready = undefined;
    if (client !== undefined) {
      this.handlers.onConnectionLost('the server was stopped');
      try {
        await client.stop(2000);
      } catch (error) {
        this.deps.log.warn(`dsh: stopping the server: ${String(error)}`);
      }
    }
    if (!this.disposed) this.setState({ kind: 'stopped' });
  }

  /** Manual restart (the `dsh.restartServer` command): resets the backoff. */
  async restart(): Promise<void> {
    this.policy.reset();
    await this.stop();
    await this.start();
  }

  /** Send a request once the server is ready. Raises `ServerUnavailableError` when it is not. */
  async request<R>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<R> {
    const client = await this.readyClient();
    return token === undefined ? client.sendRequest<R>(method, params) : client.sendRequest<R>(method, params, token);
  }

  /** Send a notification if the server is running (dropped otherwise, with a log line). */
  notify(method: string, params: unknown): void {
    const client = this.client;
    if (client === undefined || this.stateValue.kind !== 'running') {
      this.deps.log.warn(`dsh: ${method} not sent: the server is not running`);
      return;
    }
    void client.sendNotification(method, params).catch((error: unknown) => this.deps.log.warn(`dsh: ${method}: ${String(error)}`));
  }

  /** Tell the server its settings changed (push and pull models both served). */
  settingsChanged(): void {
    const client = this.client;
    if (client === undefined || this.stateValue.kind !== 'running') return;
    void client
      .sendNotification(DidChangeConfigurationNotification.type, { settings: { dsh: this.deps.serverSettings() } })
      .catch((error: unknown) => this.deps.log.warn(`dsh: didChangeConfiguration: ${String(error)}`));
  }

  /** The position encoding the running server chose (`utf-16` before it answered `initialize`). */
  positionEncoding(): PositionEncoding {
    const chosen = this.client?.initializeResult?.capabilities.positionEncoding;
    return chosen === 'utf-8' || chosen === 'utf-32' ? chosen : 'utf-16';
  }

  /** The diagnostics dsh-lsp itself published for `uri` (none today), so answers can leave them out. */
  ownDiagnostics(uri: vscode.Uri): readonly vscode.Diagnostic[] {
    return this.client?.diagnostics?.get(uri) ?? [];
  }

  dispose(): void {
    void this.stop();
    this.disposed = true;
    this.stateEmitter.dispose();
  }

  private async readyClient(): Promise<LanguageClient> {
    if (this.ready === undefined) {
      if (this.stateValue.kind === 'restarting') throw new ServerUnavailableError('the dsh server is restarting; try again in a moment');
      await this.start();
    }
    const ready = this.ready;
    if (ready === undefined) throw new ServerUnavailableError(this.unavailableMessage());
    try {
      return await ready;
    } catch {
      throw new ServerUnavailableError(this.unavailableMessage());
    }
  }

  private unavailableMessage(): string {
    return this.stateValue.kind === 'error' ? `the dsh server is not running: ${this.stateValue.message}` : 'the dsh server is not running';
  }

  private async launch(generation: number): Promise<LanguageClient> {
    this.setState({ kind: 'starting' });
    let client: LanguageClient;
    try {
      const launch = await this.deps.resolveLaunch();
      const env = { ...process.env, ...(await this.deps.serverEnv()) };
      this.deps.log.info(`dsh: starting ${[launch.command, ...launch.args].join(' ')} (from ${launch.source})`);
      const serverOptions: ServerOptions = {
        command: launch.command,
        args: launch.args,
        transport: TransportKind.stdio,
        options: { env, cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath },
      };
      client = new LanguageClient('dsh', 'dsh', serverOptions, this.clientOptions(generation));
      client.registerFeature(new DshCapabilityFeature());
      client.onNotification(Methods.sessionUpdate, (params: unknown) => this.handlers.onSessionUpdate(params));
      client.onRequest(Methods.requestPermission, (params: unknown, token: vscode.CancellationToken) =>
        this.handlers.onRequestPermission(params, token),
      );
      client.onRequest(Methods.saveDocuments, (params: unknown) => this.handlers.onSaveDocuments(params));
      const editor = this.handlers.editor;
      for (const [method, name] of EDITOR_REQUESTS) client.onRequest(method, (params: unknown, token: vscode.CancellationToken): Promise<unknown> => editor[name](params, token));
      this.client = client;
      this.policy.started(this.deps.clock.now());
      await client.start();
    } catch (error) {
      if (generation === this.generation) this.crashed(generation, `failed to start: ${errorText(error)}`);
      throw error;
    }
    if (generation !== this.generation) throw new ServerUnavailableError('the server was stopped while starting');
    this.setState({ kind: 'running' });
    return client;
  }

  private clientOptions(generation: number): LanguageClientOptions {
    return {
      documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
      outputChannel: this.deps.log,
      initializationOptions: () => this.deps.serverSettings(),
      middleware: {
        workspace: {
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (!Array.isArray(answers)) return answers;
            return params.items.map((item, i) => (item.section === 'dsh' ? this.deps.serverSettings() : answers[i]));
          },
        },
      },
      errorHandler: {
        error: (error) => {
          this.deps.log.error(`dsh: connection error: ${error.message}`);
          return { action: ErrorAction.Continue, handled: true };
        },
        closed: () => {
          if (generation === this.generation && !this.disposed) this.crashed(generation, 'the server process exited');
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
    };
  }

  /** The connection of `generation` died: fail waiters, then restart with backoff or give up. */
  private crashed(generation: number, reason: string): void {
    if (generation !== this.generation || this.restartTimer !== undefined) return;
    this.generation++;
    // The closed client cleans itself up (DoNotRestart); only forget it here.
    this.client = undefined;
    this.ready = undefined;
    this.deps.log.error(`dsh: ${reason}`);
    this.handlers.onConnectionLost(reason);
    const decision = this.policy.crashed(this.deps.clock.now());
    if (decision.action === 'giveUp') {
      this.setState({ kind: 'error', message: `${reason} (gave up after ${decision.attempts} restarts)` });
      return;
    }
    this.setState({ kind: 'restarting', attempt: decision.attempt, delayMs: decision.delayMs, reason });
    this.restartTimer = this.deps.clock.after(decision.delayMs, () => {
      this.restartTimer = undefined;
      void this.start();
    });
  }

  private cancelRestartTimer(): void {
    this.restartTimer?.dispose();
    this.restartTimer = undefined;
  }
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
