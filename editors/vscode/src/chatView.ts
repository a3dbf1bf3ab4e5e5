/**
 * The chat webview view (`dsh.chat`): HTML with a locked-down CSP, the message bridge, and the
 * host-side actions behind the webview's buttons.
 *
 * The webview holds a copy of the current session's view model: on load (and whenever the
 * current session changes) it receives a snapshot, then event batches flushed at most once per
 * frame with adjacent chunks merged. User intents come back as `ViewMessage`s, checked before
 * use. Attachments (files, selections) are kept here, so commands can add them too.
 */

import * as vscode from 'vscode';
import { type Attachment, attachmentLabel, extractMentions, promptBlocks } from './core/attachments';
import { coalesce } from './core/batching';
import { chatHtml, makeNonce } from './core/chatHtml';
import type { StatusPresentation } from './core/statusModel';
import type { ChatEvent } from './core/viewModel';
import { type HostMessage, parseViewMessage, type ViewMessage } from './core/webviewProtocol';
import type { Approvals } from './approvals';
import { type ProposedDocuments, showProposedDiff } from './diffView';
import type { Sessions } from './sessions';
import { resolvePath, workspaceRelative } from './vscodeapi';

export const CHAT_VIEW_ID = 'dsh.chat';
/** Milliseconds between event flushes to the webview (one frame). */
const FLUSH_MS = 16;

export class ChatView implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private attachments: Attachment[] = [];
  private queue: ChatEvent[] = [];
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private status: StatusPresentation = { text: 'dsh', tooltip: '', severity: 'normal' };
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly sessions: Sessions,
    private readonly approvals: Approvals,
    private readonly documents: ProposedDocuments,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions.push(
      sessions.onDidChangeModel((change) => {
        if (change.sessionId === sessions.current) this.enqueue(change.events);
      }),
      sessions.onDidChangeCurrent(() => this.postReset()),
      sessions.onDidChangeList((list) => this.post({ type: 'sessions', sessions: list, ...this.currentField() })),
    );
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    view.webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [media, dist] };
    view.webview.html = chatHtml({
      cspSource: view.webview.cspSource,
      nonce: makeNonce(Math.random),
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.css')).toString(),
    });
    this.subscriptions.push(
      view.webview.onDidReceiveMessage((raw: unknown) => {
        const message = parseViewMessage(raw);
        if (message === undefined) {
          this.log.warn(`dsh: ignored a malformed webview message: ${JSON.stringify(raw)?.slice(0, 200)}`);
          return;
        }
        this.handle(message).catch((error: unknown) => this.report(error));
      }),
      view.onDidDispose(() => {
        this.view = undefined;
      }),
    );
  }

  /** Show the status line of the server inside the view too. */
  setStatus(status: StatusPresentation): void {
    this.status = status;
    this.post({ type: 'status', status });
  }

  /** Bring the view forward without taking the keyboard focus (for approval cards). */
  async reveal(): Promise<void> {
    if (this.view !== undefined) this.view.show(true);
    else await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  /** Reveal the view and put the cursor in the input box. */
  async focus(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
    this.post({ type: 'focusInput' });
  }

  addAttachment(attachment: Attachment): void {
    if (!this.attachments.some((a) => a.uri === attachment.uri && JSON.stringify(a.range) === JSON.stringify(attachment.range))) {
      this.attachments = [...this.attachments, attachment];
    }
    this.post({ type: 'attachments', attachments: this.attachments });
  }

  /** The active editor's selection (or its whole file when nothing is selected). */
  selectionAttachment(): Attachment | undefined {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) return undefined;
    const uri = editor.document.uri;
    const relative = workspaceRelative(uri);
    const selection = editor.selection;
    if (selection.isEmpty) return { uri: uri.toString(), label: relative };
    const range = {
      start: { line: selection.start.line, character: selection.start.character },
      end: { line: selection.end.line, character: selection.end.character },
    };
    return { uri: uri.toString(), label: attachmentLabel(relative, range), range };
  }

  /** Send `text` with the pending attachments and any `@path` mentions as one prompt. */
  async send(text: string, extra: readonly Attachment[] = []): Promise<void> {
    const mentioned = await this.resolveMentions(text);
    const attachments = [...this.attachments, ...extra, ...mentioned];
    const blocks = promptBlocks(text, attachments);
    if (blocks.length === 0) return;
    this.attachments = [];
    this.post({ type: 'attachments', attachments: [] });
    await this.sessions.prompt(blocks);
  }

  private async resolveMentions(text: string): Promise<Attachment[]> {
    const found: Attachment[] = [];
    for (const mention of extractMentions(text)) {
      const uri = resolvePath(mention, this.sessions.cwdOf(this.sessions.current));
      try {
        const stat = await vscode.workspace.fs.stat(uri);
        if (stat.type & vscode.FileType.File) found.push({ uri: uri.toString(), label: workspaceRelative(uri) });
      } catch {
        // Not a file: the mention stays plain text.
      }
    }
    return found;
  }

  private async handle(message: ViewMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.postReset();
        void this.sessions.refreshList().catch((error: unknown) => this.log.warn(`dsh: listing sessions: ${String(error)}`));
        return;
      case 'send':
        await this.send(message.text);
        return;
      case 'cancel':
        this.sessions.cancel();
        return;
      case 'newSession':
        await this.sessions.newSession();
        return;
      case 'refreshSessions':
        await this.sessions.refreshList();
        return;
      case 'resume':
        await this.sessions.resume(message.sessionId);
        return;
      case 'answer':
        this.approvals.answer(message.requestId, message.optionId, message.prefix);
        return;
      case 'showDiff':
        await this.showDiff(message.itemId, message.index);
        return;
      case 'openLocation':
        await this.openLocation(message.path, message.line);
        return;
      case 'openLink':
        await this.openLink(message.href);
        return;
      case 'attachFile':
        await this.pickFile();
        return;
      case 'attachSelection': {
        const attachment = this.selectionAttachment();
        if (attachment === undefined) void vscode.window.showInformationMessage('dsh: open an editor to attach its selection.');
        else this.addAttachment(attachment);
        return;
      }
      case 'removeAttachment':
        this.attachments = this.attachments.filter((_, i) => i !== message.index);
        this.post({ type: 'attachments', attachments: this.attachments });
        return;
      case 'copy':
        await vscode.env.clipboard.writeText(message.text);
        return;
    }
  }

  private async showDiff(itemId: string, index: number): Promise<void> {
    const sessionId = this.sessions.current;
    const state = this.sessions.model(sessionId);
    const position = state.index[itemId];
    const item = position === undefined ? undefined : state.items[position];
    let content;
    let rawInput: unknown;
    if (item?.type === 'tool') ({ content, rawInput } = item.call);
    else if (item?.type === 'permission') ({ content, rawInput } = item.toolCall);
    const diffs = (content ?? []).flatMap((c) => (c.type === 'diff' ? [c] : []));
    const chosen = diffs[index];
    if (chosen === undefined) return;
    const samePath = diffs.filter((d) => d.path === chosen.path);
    const replaceAll = typeof rawInput === 'object' && rawInput !== null && (rawInput as { replace_all?: unknown }).replace_all === true;
    await showProposedDiff(this.documents, resolvePath(chosen.path, this.sessions.cwdOf(sessionId)), samePath, replaceAll);
  }

  private async openLocation(reported: string, line: number | undefined): Promise<void> {
    const uri = resolvePath(reported, this.sessions.cwdOf(this.sessions.current));
    const options: vscode.TextDocumentShowOptions = { preview: true };
    if (line !== undefined && line >= 1) options.selection = new vscode.Range(line - 1, 0, line - 1, 0);
    await vscode.window.showTextDocument(uri, options);
  }

  private async openLink(href: string): Promise<void> {
    if (/^https?:\/\//i.test(href)) {
      await vscode.env.openExternal(vscode.Uri.parse(href));
      return;
    }
    if (/^[a-z][\w+.-]*:/i.test(href) && !href.startsWith('file:')) {
      this.log.warn(`dsh: refused to open a link with scheme ${href.split(':')[0]}`);
      return;
    }
    const [file, line] = href.replace(/^file:\/\//, '').split('#L');
    await this.openLocation(decodeURIComponent(file ?? href), line === undefined ? undefined : Number.parseInt(line, 10));
  }

  private async pickFile(): Promise<void> {
    const files = await vscode.workspace.findFiles('**/*', '**/{node_modules,.git,.venv,__pycache__}/**', 5000);
    const picked = await vscode.window.showQuickPick(
      files.map((uri) => ({ label: workspaceRelative(uri), uri })).sort((a, b) => a.label.localeCompare(b.label)),
      { placeHolder: 'Attach a file to the next prompt', matchOnDescription: true },
    );
    if (picked !== undefined) this.addAttachment({ uri: picked.uri.toString(), label: picked.label });
  }

  private report(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.log.error(`dsh: ${message}`);
    void vscode.window.showErrorMessage(`dsh: ${message}`);
  }

  private currentField(): { current?: string } {
    const current = this.sessions.current;
    return current === undefined ? {} : { current };
  }

  private enqueue(events: ChatEvent[]): void {
    if (this.view === undefined) return;
    this.queue.push(...events);
    this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    this.flushTimer = undefined;
    const sessionId = this.sessions.current;
    const events = coalesce(this.queue);
    this.queue = [];
    if (sessionId !== undefined && events.length > 0) this.post({ type: 'events', sessionId, events });
  }

  private postReset(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.queue = [];
    const sessionId = this.sessions.current;
    const cwd = this.sessions.cwdOf(sessionId);
    this.post({
      type: 'reset',
      ...(sessionId === undefined ? {} : { sessionId }),
      ...(cwd === undefined ? {} : { cwd }),
      state: this.sessions.model(sessionId),
      sessions: this.sessions.sessions,
      attachments: this.attachments,
      status: this.status,
    });
  }

  private post(message: HostMessage): void {
    void this.view?.webview.postMessage(message);
  }

  dispose(): void {
    clearTimeout(this.flushTimer);
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}
