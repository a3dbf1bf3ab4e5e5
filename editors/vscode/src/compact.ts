// The context meter and compaction in the chat view: the `dsh.compact` command asks the server to
// summarize the current session's older history now (`dsh/session/compact`).
import * as vscode from 'vscode';

/** What `dsh.compact` needs: the current session and a way to send a request. */
export interface CompactTargets {
  sessions: { readonly current: string | undefined };
  client: { request<R>(method: string, params: unknown): Promise<R> };
}

interface CompactResult {
  tokensBefore?: number;
  tokensAfter?: number;
}

function short(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/** `dsh.compact`: summarize the current session's history now; reports the saving. */
export async function compactNow({ sessions, client }: CompactTargets): Promise<void> {
  const sessionId = sessions.current;
  if (sessionId === undefined) {
    void vscode.window.setStatusBarMessage('dsh: no session yet', 2000);
    return;
  }
  const result = await client.request<CompactResult>('dsh/session/compact', { sessionId });
  const before = short(result.tokensBefore ?? 0);
  const after = short(result.tokensAfter ?? 0);
  void vscode.window.setStatusBarMessage(`dsh: compacted ~${before} → ~${after} tokens`, 4000);
}
