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

/** The `dsh/status` answer: the model and endpoint the server uses (never the key). */
export interface ModelEndpoint {
  model: string;
  baseUrl: string;
  apiKeyEnv: string;
  apiKeySet: boolean;
  apiKeyRequired: boolean;
}

/** `value` as a `ModelEndpoint`, or `undefined` when it is not one (an older server). */
export function parseModelEndpoint(value: unknown): ModelEndpoint | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.model !== 'string' || typeof v.baseUrl !== 'string' || typeof v.apiKeyEnv !== 'string') return undefined;
  return { model: v.model, baseUrl: v.baseUrl, apiKeyEnv: v.apiKeyEnv, apiKeySet: v.apiKeySet === true, apiKeyRequired: v.apiKeyRequired !== false };
}

export interface StatusPresentation {
  text: string;
  tooltip: string;
  severity: 'normal' | 'warning' | 'error';
}

/**
 * The item for `server` and `turn`; while the server runs, `endpoint` (from `dsh/status`) adds
 * the model to the text and the endpoint (and a missing key) to the tooltip.
 */
export function presentStatus(server: ServerState, turn: TurnActivity, endpoint?: ModelEndpoint): StatusPresentation {
  const base = presentServer(server, turn);
  if (server.kind !== 'running' || endpoint === undefined) return base;
  const missingKey = endpoint.apiKeyRequired && !endpoint.apiKeySet;
  const key = missingKey ? `\n$${endpoint.apiKeyEnv} is not set: prompts fail until it is` : '';
  return {
    text: `${base.text} · ${endpoint.model}`,
    tooltip: `${base.tooltip}\nmodel ${endpoint.model} at ${endpoint.baseUrl}${key}`,
    severity: missingKey && base.severity === 'normal' ? 'warning' : base.severity,
  };
}

function presentServer(server: ServerState, turn: TurnActivity): StatusPresentation {
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
