/**
 * Permission requests (`dsh/requestPermission`): a card in the chat, answered by the user.
 *
 * Each request becomes a `permissionRequested` event in its session's model and stays
 * pending until the user picks an option, the turn is cancelled (`cancelled`), or the server
 * withdraws it with `$/cancelRequest` (the card shows it was withdrawn). Malformed requests
 * are answered `cancelled` at once.
 */

import type * as vscode from 'vscode';
import { selectedOutcome } from './core/notices';
import { parsePermissionRequest } from './core/parse';
import type { PermissionResponse } from './core/protocol';
import type { ChatEvent } from './core/viewModel';
import type { Sessions } from './sessions';

interface Pending {
  sessionId: string;
  /** The command prefix "always allow" offers (a shell command's question). */
  prefix?: string;
  resolve(response: PermissionResponse): void;
}

const CANCELLED: PermissionResponse = { outcome: { outcome: 'cancelled' } };

export class Approvals {
  private readonly pending = new Map<string, Pending>();
  private next = 1;

  constructor(
    private readonly sessions: Sessions,
    private readonly log: vscode.LogOutputChannel,
    /** Bring the chat view forward so the card is seen. */
    private readonly reveal: () => void,
  ) {}

  /** Answer a `dsh/requestPermission` request; resolves when the user (or a cancel) decides. */
  handle(raw: unknown, token: vscode.CancellationToken): Promise<PermissionResponse> {
    const params = parsePermissionRequest(raw);
    if (params === undefined) {
      this.log.warn(`dsh: malformed permission request answered "cancelled": ${JSON.stringify(raw)?.slice(0, 300)}`);
      return Promise.resolve(CANCELLED);
    }
    const requestId = `r${this.next++}`;
    return new Promise<PermissionResponse>((resolve) => {
      const pending: Pending = { sessionId: params.sessionId, resolve };
      if (params.prefix !== undefined) pending.prefix = params.prefix;
      this.pending.set(requestId, pending);
      token.onCancellationRequested(() => this.settle(requestId, 'withdrawn'));
      const event: ChatEvent = { type: 'permissionRequested', requestId, toolCall: params.toolCall, options: params.options };
      if (params.prefix !== undefined) event.prefix = params.prefix;
      this.sessions.apply(params.sessionId, [event]);
      this.reveal();
    });
  }

  /**
   * The user's choice for `requestId` (`undefined`: dismissed, answered `cancelled`); with
   * "always allow" on a shell command, `prefix` is the command prefix they confirmed.
   */
  answer(requestId: string, optionId: string | undefined, prefix?: string): void {
    this.settle(requestId, optionId === undefined ? 'cancelled' : prefix === undefined ? { optionId } : { optionId, prefix });
  }

  /** Answer every pending request of `sessionId` with `cancelled` (the turn is being stopped). */
  cancelSession(sessionId: string): void {
    for (const [requestId, pending] of [...this.pending]) if (pending.sessionId === sessionId) this.settle(requestId, 'cancelled');
  }

  /** The connection is gone: forget every request (nobody waits for the answers). */
  dropAll(): void {
    for (const requestId of [...this.pending.keys()]) this.settle(requestId, 'withdrawn');
  }

  private settle(requestId: string, how: { optionId: string; prefix?: string } | 'cancelled' | 'withdrawn'): void {
    const pending = this.pending.get(requestId);
    if (pending === undefined) return;
    this.pending.delete(requestId);
    if (typeof how === 'object') {
      const outcome = selectedOutcome(how.optionId, pending.prefix, how.prefix);
      pending.resolve({ outcome });
      this.sessions.apply(pending.sessionId, [{ type: 'permissionResolved', requestId, outcome }]);
      return;
    }
    pending.resolve(CANCELLED);
    this.sessions.apply(pending.sessionId, [{ type: 'permissionResolved', requestId, outcome: { outcome: how } }]);
  }
}
