/**
 * Chat sessions on the extension host: the current session, one view model per session, and
 * the `dsh/*` calls that change them (new, list, resume, prompt, cancel).
 *
 * Every change goes through the shared reducer (`core/viewModel`) and is announced as an
 * event batch, which the chat view forwards to the webview. A turn is one pending
 * `dsh/prompt` request; its answer (or error) closes the turn in the model.
 */

import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient/node';
import { parsePromptResult, parseSessionList, parseSessionUpdate } from './core/parse';
import { type ContentBlock, Methods, type SessionInfo, type SessionNewResult } from './core/protocol';
import type { TurnActivity } from './core/statusModel';
import { type ChatEvent, type ChatState, EMPTY_STATE, reduceAll } from './core/viewModel';

export interface SessionRpc {
  request<R>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<R>;
  notify(method: string, params: unknown): void;
}

export interface ModelChange {
  sessionId: string;
  events: ChatEvent[];
  changed: string[];
}

/** How long after `dsh/cancel` the prompt request itself is cancelled, if still unanswered. */
export const CANCEL_FALLBACK_MS = 3000;

const REQUEST_CANCELLED = -32800;

interface Turn {
  source: vscode.CancellationTokenSource;
  /** Cancels the request itself when `dsh/cancel` was not answered in time. */
  fallback?: ReturnType<typeof setTimeout>;
}

export class Sessions implements vscode.Disposable {
  private readonly models = new Map<string, ChatState>();
  private readonly cwds = new Map<string, string>();
  private readonly turns = new Map<string, Turn>();
  private currentId: string | undefined;
  private known: SessionInfo[] = [];
  /** Sessions shown here that the (restarted) server process does not hold live. */
  private stale = new Set<string>();
  private readonly changeEmitter = new vscode.EventEmitter<ModelChange>();
  private readonly currentEmitter = new vscode.EventEmitter<string | undefined>();
  private readonly listEmitter = new vscode.EventEmitter<SessionInfo[]>();
  /** A model changed (any session). */
  readonly onDidChangeModel = this.changeEmitter.event;
  /** Another session became current (or none). */
  readonly onDidChangeCurrent = this.currentEmitter.event;
  /** The session list was fetched. */
  readonly onDidChangeList = this.listEmitter.event;

  constructor(
    private readonly rpc: SessionRpc,
    private readonly cwd: () => string | undefined,
    private readonly log: vscode.LogOutputChannel,
    private readonly onCancel: (sessionId: string) => void,
  ) {}

  get current(): string | undefined {
    return this.currentId;
  }

  get sessions(): SessionInfo[] {
    return this.known;
  }

  model(sessionId: string | undefined): ChatState {
    return (sessionId && this.models.get(sessionId)) || EMPTY_STATE;
  }

  cwdOf(sessionId: string | undefined): string | undefined {
    return (sessionId && this.cwds.get(sessionId)) || this.cwd();
  }

  /** The current session's turn state, for the status bar and context keys. */
  activity(): TurnActivity {
    const state = this.model(this.currentId);
    if (state.requiresAction) return 'requires_action';
    return state.running ? 'running' : 'idle';
  }

  isRunning(sessionId: string | undefined): boolean {
    return sessionId !== undefined && this.turns.has(sessionId);
  }

  /** Fold `events` into the model of `sessionId` and announce the change. */
  apply(sessionId: string, events: ChatEvent[]): void {
    const { state, changed } = reduceAll(this.model(sessionId), events);
    this.models.set(sessionId, state);
    this.changeEmitter.fire({ sessionId, events, changed });
  }

  /** A `dsh/session/update` notification (malformed ones are logged and dropped). */
  handleUpdate(raw: unknown): void {
    const params = parseSessionUpdate(raw);
    if (params === undefined) {
      this.log.warn(`dsh: ignored a malformed or unknown session update: ${JSON.stringify(raw)?.slice(0, 300)}`);
      return;
    }
    this.apply(params.sessionId, [{ type: 'update', update: params.update }]);
  }

  private setCurrent(sessionId: string | undefined): void {
    this.currentId = sessionId;
    this.currentEmitter.fire(sessionId);
  }

  /** Create a session in the first workspace folder and make it current. */
  async newSession(): Promise<string> {
    const cwd = this.cwd();
    const result = await this.rpc.request<SessionNewResult>(Methods.sessionNew, cwd === undefined ? {} : { cwd });
    if (typeof result?.sessionId !== 'string') throw new Error('dsh/session/new answered without a sessionId');
    this.models.set(result.sessionId, EMPTY_STATE);
    if (cwd !== undefined) this.cwds.set(result.sessionId, cwd);
    this.setCurrent(result.sessionId);
    this.refreshQuietly();
    return result.sessionId;
  }

  /** Fetch the session list (newest first). */
  async refreshList(): Promise<SessionInfo[]> {
    this.known = parseSessionList(await this.rpc.request<unknown>(Methods.sessionList, {}));
    for (const info of this.known) if (info.cwd) this.cwds.set(info.sessionId, info.cwd);
    this.listEmitter.fire(this.known);
    return this.known;
  }

  /** Refresh the list in the background (titles and times change as sessions are used). */
  private refreshQuietly(): void {
    this.refreshList().catch((error: unknown) => this.log.warn(`dsh: listing sessions: ${String(error)}`));
  }

  /** Resume `sessionId`: its history is replayed into a fresh model, then it is current. */
  async resume(sessionId: string): Promise<void> {
    if (this.isRunning(sessionId)) {
      this.setCurrent(sessionId);
      return;
    }
    const previous = this.currentId;
    this.models.set(sessionId, EMPTY_STATE);
    this.setCurrent(sessionId);
    try {
      await this.rpc.request<unknown>(Methods.sessionResume, { sessionId });
      this.stale.delete(sessionId);
    } catch (error) {
      this.models.delete(sessionId);
      this.setCurrent(previous);
      throw error;
    }
  }

  /** Run one turn on the current session (a new one when there is none). Resolves when it ends. */
  async prompt(blocks: ContentBlock[]): Promise<void> {
    const sessionId = this.currentId ?? (await this.newSession());
    // After a server restart the session lives only on disk: resume it (its history replays).
    if (this.stale.has(sessionId)) await this.resume(sessionId);
    if (this.turns.has(sessionId)) throw new Error('a turn is already running in this session: wait for it or stop it');
    const source = new vscode.CancellationTokenSource();
    const turn: Turn = { source };
    this.turns.set(sessionId, turn);
    this.apply(sessionId, [{ type: 'userPrompt', content: blocks }]);
    let outcome: ChatEvent;
    try {
      const raw = await this.rpc.request<unknown>(Methods.prompt, { sessionId, prompt: blocks }, source.token);
      const result = parsePromptResult(raw);
      if (result === undefined) outcome = { type: 'turnFailed', message: `the server answered dsh/prompt with ${JSON.stringify(raw)}` };
      else outcome = result.usage === undefined ? { type: 'turnEnded', stopReason: result.stopReason } : { type: 'turnEnded', ...result };
    } catch (error) {
      outcome = turnError(error);
    } finally {
      clearTimeout(turn.fallback);
      source.dispose();
    }
    // A turn already failed by `connectionLost` is not closed twice.
    if (this.turns.get(sessionId) === turn) {
      this.turns.delete(sessionId);
      this.apply(sessionId, [outcome]);
      this.refreshQuietly();
    }
  }

  /** Stop the current session's turn: `dsh/cancel`, then the request itself if unanswered. */
  cancel(sessionId: string | undefined = this.currentId): boolean {
    if (sessionId === undefined) return false;
    const turn = this.turns.get(sessionId);
    if (turn === undefined) return false;
    this.onCancel(sessionId);
    this.rpc.notify(Methods.cancel, { sessionId });
    turn.fallback ??= setTimeout(() => turn.source.cancel(), CANCEL_FALLBACK_MS);
    return true;
  }

  /** The server went away: every running turn ends with an error, and every session must be resumed before its next prompt. */
  connectionLost(reason: string): void {
    this.stale = new Set(this.models.keys());
    for (const [sessionId, turn] of [...this.turns]) {
      clearTimeout(turn.fallback);
      turn.source.cancel();
      this.turns.delete(sessionId);
      this.apply(sessionId, [{ type: 'turnFailed', message: `the dsh server stopped (${reason})` }]);
    }
  }

  dispose(): void {
    for (const turn of this.turns.values()) {
      clearTimeout(turn.fallback);
      turn.source.cancel();
    }
    this.changeEmitter.dispose();
    this.currentEmitter.dispose();
    this.listEmitter.dispose();
  }
}

/** The chat event for a failed `dsh/prompt`: cancellation ends the turn, anything else fails it. */
export function turnError(error: unknown): ChatEvent {
  if (error instanceof ResponseError) {
    if (error.code === REQUEST_CANCELLED) return { type: 'turnEnded', stopReason: 'cancelled' };
    const data: unknown = error.data;
    const code = typeof data === 'object' && data !== null && typeof (data as { code?: unknown }).code === 'string' ? (data as { code: string }).code : undefined;
    return code === undefined ? { type: 'turnFailed', message: error.message } : { type: 'turnFailed', message: error.message, code };
  }
  return { type: 'turnFailed', message: error instanceof Error ? error.message : String(error) };
}
