/**
 * Typed extension settings (pure): what the server receives and how the server is launched.
 *
 * `readServerSettings` turns the `dsh.*` configuration into the object sent as
 * `initializationOptions` and answered for `workspace/configuration` section `dsh`: the shape
 * the server validates (`model`, `permissions`, `edits`, `editor`, `maxStepsPerTurn`, `sessionDir`). Unset or
 * invalid values are left out so the server's own defaults apply; invalid ones are reported
 * as problems. `readClientSettings` covers the keys only the extension uses.
 */

export type EditPolicy = 'allow' | 'ask';
export type AskPolicy = 'ask' | 'allow' | 'deny';
export type Thinking = 'enabled' | 'disabled';
export type ReasoningEffort = 'low' | 'medium' | 'high' | 'max';

export interface ServerSettings {
  model?: {
    name?: string;
    baseUrl?: string;
    apiKeyEnv?: string;
    thinking?: Thinking;
    reasoningEffort?: ReasoningEffort;
    temperature?: number;
    maxTokens?: number;
    stop?: string[];
    contextWindow?: number;
    timeouts?: { connect?: number; firstByte?: number; readIdle?: number; retryBudget?: number };
  };
  permissions?: { edit?: EditPolicy; shell?: AskPolicy; readOutsideWorkspace?: AskPolicy; shellAllow?: string[] };
  edits?: { saveAfterTurn?: boolean };
  editor?: { diagnosticsAfterEdit?: boolean; diagnosticsTimeoutMs?: number; requestTimeoutMs?: number };
  shell?: { defaultTimeout?: number; maxTimeout?: number };
  instructions?: { files?: string[] };
  compaction?: { threshold?: number };
  maxStepsPerTurn?: number;
  sessionDir?: string;
  sessionStore?: 'jsonl' | 'sqlite';
}

type Kind =
  | { type: 'string'; path?: boolean }
  | { type: 'boolean' }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'integer'; minimum: number; maximum?: number }
  | { type: 'number'; minimum: number; maximum: number }
  | { type: 'number'; above: number; maximum?: number }
  | { type: 'strings'; maxItems: number }
  | { type: 'strings'; keepEmpty: true };

/** Every server-facing key below `dsh.`, with how its value is checked. */
export const SERVER_SETTING_SPECS: Readonly<Record<string, Kind>> = {
  'model.name': { type: 'string' },
  'model.baseUrl': { type: 'string' },
  'model.apiKeyEnv': { type: 'string' },
  'model.thinking': { type: 'enum', values: ['enabled', 'disabled'] },
  'model.reasoningEffort': { type: 'enum', values: ['low', 'medium', 'high', 'max'] },
  'model.temperature': { type: 'number', minimum: 0, maximum: 2 },
  'model.maxTokens': { type: 'integer', minimum: 1 },
  'model.stop': { type: 'strings', maxItems: 16 },
  'model.contextWindow': { type: 'integer', minimum: 1024, maximum: 100_000_000 },
  'model.timeouts.connect': { type: 'number', above: 0 },
  'model.timeouts.firstByte': { type: 'number', above: 0 },
  'model.timeouts.readIdle': { type: 'number', above: 0 },
  'model.timeouts.retryBudget': { type: 'number', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  'permissions.edit': { type: 'enum', values: ['allow', 'ask'] },
  'permissions.shell': { type: 'enum', values: ['ask', 'allow', 'deny'] },
  'permissions.readOutsideWorkspace': { type: 'enum', values: ['ask', 'allow', 'deny'] },
  'permissions.shellAllow': { type: 'strings', keepEmpty: true },
  'edits.saveAfterTurn': { type: 'boolean' },
  'editor.diagnosticsAfterEdit': { type: 'boolean' },
  'editor.diagnosticsTimeoutMs': { type: 'integer', minimum: 0, maximum: 10_000 },
  'editor.requestTimeoutMs': { type: 'integer', minimum: 100, maximum: 60_000 },
  'shell.defaultTimeout': { type: 'number', above: 0, maximum: 86_400 },
  'shell.maxTimeout': { type: 'number', above: 0, maximum: 86_400 },
  'instructions.files': { type: 'strings', keepEmpty: true },
  'compaction.threshold': { type: 'number', above: 0, maximum: 1 },
  maxStepsPerTurn: { type: 'integer', minimum: 1, maximum: 10_000 },
  sessionDir: { type: 'string', path: true },
  sessionStore: { type: 'enum', values: ['jsonl', 'sqlite'] },
};

/** Keys below `dsh.` that only the extension reads (never sent to the server). */
export const CLIENT_SETTING_KEYS = ['server.command', 'trace.server'] as const;

export interface Substitutions {
  workspaceFolder?: string;
  userHome?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

/** Expand `${workspaceFolder}`, `${userHome}`, `${env:NAME}` and a leading `~/`. */
export function substitute(value: string, vars: Substitutions): string {
  let out = value.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (match, name: string, envName?: string) => {
    if (envName !== undefined) return vars.env?.[envName] ?? '';
    if (name === 'workspaceFolder') return vars.workspaceFolder ?? match;
    return vars.userHome ?? match;
  });
  if (vars.userHome !== undefined && (out === '~' || out.startsWith('~/'))) out = vars.userHome + out.slice(1);
  return out;
}

export interface ReadResult<T> {
  settings: T;
  problems: string[];
}

type Getter = (key: string) => unknown;

function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next === 'object' && next !== null) node = next as Record<string, unknown>;
    else {
      const created: Record<string, unknown> = {};
      node[part] = created;
      node = created;
    }
  }
  node[parts[parts.length - 1] ?? key] = value;
}

function check(key: string, kind: Kind, value: unknown, vars: Substitutions): { value?: unknown; problem?: string } {
  switch (kind.type) {
    case 'string':
      if (typeof value !== 'string') return { problem: `dsh.${key} must be a string` };
      if (value.trim() === '') return {};
      return { value: kind.path ? substitute(value, vars) : value };
    case 'boolean':
      return typeof value === 'boolean' ? { value } : { problem: `dsh.${key} must be true or false (got ${JSON.stringify(value)})` };
    case 'enum':
      return kind.values.includes(value as string)
        ? { value }
        : { problem: `dsh.${key} must be one of ${kind.values.join(', ')} (got ${JSON.stringify(value)})` };
    case 'integer': {
      const maximum = kind.maximum ?? Number.MAX_SAFE_INTEGER;
      const range = kind.maximum === undefined ? `of at least ${kind.minimum}` : `from ${kind.minimum} to ${kind.maximum}`;
      return typeof value === 'number' && Number.isInteger(value) && value >= kind.minimum && value <= maximum
        ? { value }
        : { problem: `dsh.${key} must be an integer ${range} (got ${JSON.stringify(value)})` };
    }
    case 'number':
      if ('above' in kind) {
        const most = kind.maximum === undefined ? '' : `, at most ${kind.maximum}`;
        return typeof value === 'number' && Number.isFinite(value) && value > kind.above && value <= (kind.maximum ?? Infinity)
          ? { value }
          : { problem: `dsh.${key} must be a number above ${kind.above}${most} (got ${JSON.stringify(value)})` };
      }
      return typeof value === 'number' && Number.isFinite(value) && value >= kind.minimum && value <= kind.maximum
        ? { value }
        : { problem: `dsh.${key} must be a number from ${kind.minimum} to ${kind.maximum} (got ${JSON.stringify(value)})` };
    case 'strings':
      if ('keepEmpty' in kind) {
        return Array.isArray(value) && value.every((item) => typeof item === 'string')
          ? { value }
          : { problem: `dsh.${key} must be a list of strings` };
      }
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string') || value.length > kind.maxItems) {
        return { problem: `dsh.${key} must be a list of at most ${kind.maxItems} strings (got ${JSON.stringify(value)})` };
      }
      return value.length === 0 ? {} : { value };
  }
}

/** The server-facing settings; `get` reads a key below `dsh.` (`undefined`/`null` = unset). */
export function readServerSettings(get: Getter, vars: Substitutions = {}): ReadResult<ServerSettings> {
  const settings: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, kind] of Object.entries(SERVER_SETTING_SPECS)) {
    const raw = get(key);
    if (raw === undefined || raw === null) continue;
    const { value, problem } = check(key, kind, raw, vars);
    if (problem !== undefined) problems.push(problem);
    else if (value !== undefined) setPath(settings, key, value);
  }
  return { settings: settings as ServerSettings, problems };
}

export interface ClientSettings {
  /** `dsh.server.command`: argv of the server; empty = find it automatically. */
  serverCommand: string[];
}

export function readClientSettings(get: Getter, vars: Substitutions = {}): ReadResult<ClientSettings> {
  const raw = get('server.command');
  const problems: string[] = [];
  let serverCommand: string[] = [];
  if (typeof raw === 'string' && raw.trim() !== '') serverCommand = [substitute(raw.trim(), vars)];
  else if (Array.isArray(raw) && raw.every((part) => typeof part === 'string')) {
    serverCommand = (raw as string[]).map((part) => substitute(part, vars)).filter((part) => part !== '');
  } else if (raw !== undefined && raw !== null && !(Array.isArray(raw) && raw.length === 0) && raw !== '') {
    problems.push('dsh.server.command must be an array of strings (the program, then its arguments)');
  }
  return { settings: { serverCommand }, problems };
}
