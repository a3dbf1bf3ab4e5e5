/**
 * The status bar item: server state and turn activity at a glance; a click opens the chat.
 * While the server runs, it shows the model it uses (tooltip: the endpoint), from `dsh/status`.
 * Also keeps the `dsh.turnRunning` context key (used by the cancel keybinding) current.
 */

import * as vscode from 'vscode';
import { type ModelEndpoint, parseModelEndpoint, presentStatus, type ServerState, type StatusPresentation, type TurnActivity } from './core/statusModel';

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private server: ServerState = { kind: 'stopped' };
  private turn: TurnActivity = 'idle';
  private endpoint: ModelEndpoint | undefined;

  constructor(private readonly onPresent: (status: StatusPresentation) => void) {
    this.item = vscode.window.createStatusBarItem('dsh.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'dsh';
    this.item.command = 'dsh.focusChat';
    this.render();
    this.item.show();
  }

  /** Show `state`; once running, ask `status` (`dsh/status`) for the model and endpoint. */
  setServer(state: ServerState, status?: () => Promise<unknown>): void {
    this.server = state;
    this.endpoint = undefined;
    this.render();
    if (state.kind !== 'running' || status === undefined) return;
    status().then(
      (answer) => {
        if (this.server !== state) return; // the server changed meanwhile
        this.endpoint = parseModelEndpoint(answer);
        this.render();
      },
      () => undefined, // an older server without dsh/status: the item shows no model
    );
  }

  setTurn(activity: TurnActivity): void {
    if (activity === this.turn) return;
    this.turn = activity;
    void vscode.commands.executeCommand('setContext', 'dsh.turnRunning', activity !== 'idle');
    this.render();
  }

  private render(): void {
    const status = presentStatus(this.server, this.turn, this.endpoint);
    this.item.text = status.text;
    this.item.tooltip = status.tooltip;
    this.item.backgroundColor =
      status.severity === 'error'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : status.severity === 'warning'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    this.onPresent(status);
  }

  dispose(): void {
    this.item.dispose();
  }
}
