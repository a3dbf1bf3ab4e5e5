/**
 * The `dsh.*` commands. Each is a few lines over the chat view, sessions and client.
 */

import * as vscode from 'vscode';
import type { ChatView } from './chatView';
import { compactNow } from './compact';
import type { DshClient } from './client';
import type { Sessions } from './sessions';

export const API_KEY_SECRET = 'dsh.apiKey';

export interface CommandTargets {
  client: DshClient;
  sessions: Sessions;
  chat: ChatView;
  secrets: vscode.SecretStorage;
  log: vscode.LogOutputChannel;
}

function guarded(log: vscode.LogOutputChannel, run: (...args: unknown[]) => Promise<unknown>): (...args: unknown[]) => Promise<void> {
  return async (...args) => {
    try {
      await run(...args);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log.error(`dsh: ${message}`);
      void vscode.window.showErrorMessage(`dsh: ${message}`);
    }
  };
}

function formatWhen(when: number | string | undefined): string {
  if (when === undefined) return '';
  const date = new Date(when);
  return Number.isNaN(date.getTime()) ? String(when) : date.toLocaleString();
}

async function showSessions({ sessions }: CommandTargets): Promise<void> {
  const list = await sessions.refreshList();
  const items = list.map((info) => ({
    label: info.title ?? info.sessionId,
    description: formatWhen(info.updatedAt ?? info.createdAt),
    detail: info.cwd,
    sessionId: info.sessionId,
  }));
  const picked = await vscode.window.showQuickPick(items, { placeHolder: list.length ? 'Resume a dsh session' : 'No sessions yet' });
  if (picked !== undefined) await sessions.resume(picked.sessionId);
}

async function ask({ chat }: CommandTargets): Promise<void> {
  const attachment = chat.selectionAttachment();
  const question = await vscode.window.showInputBox({
    prompt: attachment ? `Ask dsh about ${attachment.label}` : 'Ask dsh',
    placeHolder: 'What should the agent do?',
  });
  await chat.focus();
  if (question === undefined || question.trim() === '') {
    if (attachment) chat.addAttachment(attachment);
    return;
  }
  await chat.send(question, attachment ? [attachment] : []);
}

async function setApiKey({ secrets, client }: CommandTargets): Promise<void> {
  const key = await vscode.window.showInputBox({ prompt: 'API key for the model endpoint (kept in VS Code secret storage)', password: true, ignoreFocusOut: true });
  if (key === undefined) return;
  if (key.trim() === '') await secrets.delete(API_KEY_SECRET);
  else await secrets.store(API_KEY_SECRET, key.trim());
  await client.restart();
}

/** Register every command; the returned disposables belong in `context.subscriptions`. */
export function registerCommands(targets: CommandTargets): vscode.Disposable[] {
  const { client, sessions, chat, log } = targets;
  const table: Record<string, (...args: unknown[]) => Promise<unknown>> = {
    'dsh.newSession': async () => {
      await sessions.newSession();
      await chat.focus();
    },
    'dsh.ask': () => ask(targets),
    'dsh.cancel': async () => {
      if (!sessions.cancel()) void vscode.window.setStatusBarMessage('dsh: no turn is running', 2000);
    },
    'dsh.showSessions': () => showSessions(targets),
    'dsh.focusChat': () => chat.focus(),
    'dsh.restartServer': () => client.restart(),
    'dsh.setApiKey': () => setApiKey(targets),
    'dsh.compact': () => compactNow({ sessions, client }),
  };
  return Object.entries(table).map(([id, run]) => vscode.commands.registerCommand(id, guarded(log, run)));
}
