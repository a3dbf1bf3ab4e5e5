/**
 * What the status bar item shows for a server and turn state (pure).
 */

export type ServerState =
  | { kind: 'stopped' }
  | { kind: 'starting' }
  | { kind: 'running' }
  | { kind: 'restarting'; attempt: number; delayMs: number; reason: string }
  | { kind: 'error'; message: string };

export type TurnActivity = 'idle' | 'running' | 'requires_action';

export interface StatusPresentation {
  text: string;
  tooltip: string;
  severity: 'normal' | 'warning' | 'error';
}

export function presentStatus(server: ServerState, turn: TurnActivity): StatusPresentation {
  switch (server.kind) {
    case 'stopped':
      return { text: '$(circle-slash) dsh', tooltip: 'dsh: server stopped — click to open the chat', severity: 'normal' };
    case 'starting':
      return { text: '$(sync~spin) dsh', tooltip: 'dsh: starting the server…', severity: 'normal' };
    case 'restarting':
      return {
        text: '$(sync~spin) dsh',
        tooltip: `dsh: the server stopped (${server.reason}); restart ${server.attempt} in ${Math.round(server.delayMs / 100) / 10} s`,
        severity: 'warning',
      };
    case 'error':
      return { text: '$(error) dsh', tooltip: `dsh: ${server.message} — run "dsh: Restart Server"`, severity: 'error' };
    case 'running':
      switch (turn) {
        case 'idle':
          return { text: '$(comment-discussion) dsh', tooltip: 'dsh: idle — click to open the chat', severity: 'normal' };
        case 'running':
          return { text: '$(loading~spin) dsh: running', tooltip: 'dsh: a turn is running — click to open the chat', severity: 'normal' };
        case 'requires_action':
          return { text: '$(bell-dot) dsh: approval needed', tooltip: 'dsh: the agent waits for your approval', severity: 'warning' };
      }
  }
}
