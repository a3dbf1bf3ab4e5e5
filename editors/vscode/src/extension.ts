/**
 * Extension entry point: composes the parts and hands every disposable to the context.
 * No logic lives here; `deactivate` stops the server.
 */

import * as vscode from 'vscode';
import { Approvals } from './approvals';
import { CHAT_VIEW_ID, ChatView } from './chatView';
import { DshClient } from './client';
import { API_KEY_SECRET, registerCommands } from './commands';
import { Methods } from './core/protocol';
import { saveDocuments } from './core/saveDocuments';
import { resolveServerLaunch } from './core/serverCommand';
import { readClientSettings, readServerSettings } from './core/settings';
import { PROPOSED_SCHEME, ProposedDocuments } from './diffView';
import { EditorServices } from './editorHost';
import { Sessions } from './sessions';
import { StatusBar } from './statusBar';
import { openDocuments, pythonInterpreter, readSetting, realClock, SECTION, substitutions, which, workspaceRoot } from './vscodeapi';

/** The client `deactivate` stops (VS Code awaits the returned promise, unlike disposal). */
let running: DshClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('dsh', { log: true });
  context.subscriptions.push(log);

  const serverSettings = () => {
    const { settings, problems } = readServerSettings(readSetting, substitutions());
    for (const problem of problems) log.warn(`dsh: setting ignored: ${problem}`);
    return settings;
  };
  const rpc = {
    request: <R>(method: string, params: unknown, token?: vscode.CancellationToken) => client.request<R>(method, params, token),
    notify: (method: string, params: unknown) => client.notify(method, params),
  };
  const sessions = new Sessions(rpc, workspaceRoot, log, (sessionId) => approvals.cancelSession(sessionId));
  const approvals: Approvals = new Approvals(sessions, log, () => void chat.reveal());
  const editor = new EditorServices({
    ownDiagnostics: (uri) => client.ownDiagnostics(uri),
    encoding: () => client.positionEncoding(),
    warn: (message) => log.warn(message),
    info: (message) => log.info(message),
  });
  context.subscriptions.push(editor);
  const client: DshClient = new DshClient(
    {
      log,
      clock: realClock,
      serverSettings,
      resolveLaunch: () => {
        const { settings, problems } = readClientSettings(readSetting, substitutions());
        for (const problem of problems) log.warn(`dsh: setting ignored: ${problem}`);
        return resolveServerLaunch(settings.serverCommand, { which, interpreter: pythonInterpreter });
      },
      serverEnv: async () => {
        const key = await context.secrets.get(API_KEY_SECRET);
        const variable = serverSettings().model?.apiKeyEnv ?? 'DEEPSEEK_API_KEY';
        return key === undefined ? {} : { [variable]: key };
      },
    },
    {
      onSessionUpdate: (params) => sessions.handleUpdate(params),
      onRequestPermission: (params, token) => approvals.handle(params, token),
      onSaveDocuments: (params) =>
        saveDocuments(params, { documents: openDocuments, canonical: (uri) => vscode.Uri.parse(uri, true).toString(), warn: (message) => log.warn(message) }),
      onConnectionLost: (reason) => {
        approvals.dropAll();
        sessions.connectionLost(reason);
      },
      editor: editor.handlers,
    },
  );
  running = client;
  const documents = new ProposedDocuments();
  const chat = new ChatView(context.extensionUri, sessions, approvals, documents, log);
  const status = new StatusBar((presentation) => chat.setStatus(presentation));

  context.subscriptions.push(
    client,
    sessions,
    documents,
    chat,
    status,
    vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, documents),
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, chat, { webviewOptions: { retainContextWhenHidden: true } }),
    client.onDidChangeState((state) => status.setServer(state, () => client.request<unknown>(Methods.status, {}))),
    sessions.onDidChangeModel(() => status.setTurn(sessions.activity())),
    sessions.onDidChangeCurrent(() => status.setTurn(sessions.activity())),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${SECTION}.server`)) void client.restart();
      else if (event.affectsConfiguration(SECTION)) client.settingsChanged();
    }),
    ...registerCommands({ client, sessions, chat, secrets: context.secrets, log }),
  );
  void client.start();
}

export async function deactivate(): Promise<void> {
  const client = running;
  running = undefined;
  await client?.stop();
}
