/**
 * Parsers of untrusted server data (pure). Each returns `undefined` (or drops an item) for
 * anything malformed or of an unknown kind, so the UI never renders a half-typed object.
 */

import {
  COMPACTION_STATES,
  PERMISSION_KINDS,
  SESSION_STATES,
  STOP_REASONS,
  TOOL_KINDS,
  TOOL_STATUSES,
  type ContentBlock,
  type EditorDiagnosticsParams,
  type EditorPositionParams,
  type EditorSymbolsParams,
  type PermissionOption,
  type PermissionRequestParams,
  type PermissionToolCall,
  type PlanEntry,
  type Position,
  type PromptResult,
  type Range,
  type SaveDocumentsParams,
  type SessionInfo,
  type SessionUpdate,
  type SessionUpdateParams,
  type ToolCallContent,
  type ToolCallPatch,
  type ToolLocation,
  type Usage,
} from './protocol';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function str(obj: Json, key: string): string | undefined {
  const value = obj[key];
  return typeof value === 'string' ? value : undefined;
}
function num(obj: Json, key: string): number | undefined {
  const value = obj[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
/** Sets on `target` each of `keys` that `read` finds in `source` (the others stay unset). */
function copyFields<T extends object, K extends keyof T & string>(target: T, source: Json, keys: readonly K[], read: (obj: Json, key: string) => T[K] | undefined): void {
  for (const key of keys) {
    const value = read(source, key);
    if (value !== undefined) target[key] = value;
  }
}
function oneOf<T extends string>(values: readonly T[], value: unknown): T | undefined {
  return typeof value === 'string' && (values as readonly string[]).includes(value) ? (value as T) : undefined;
}

export function parsePosition(value: unknown): Position | undefined {
  if (!isObject(value)) return undefined;
  const line = num(value, 'line');
  const character = num(value, 'character');
  return line === undefined || character === undefined ? undefined : { line, character };
}

export function parseRange(value: unknown): Range | undefined {
  if (!isObject(value)) return undefined;
  const start = parsePosition(value.start);
  const end = parsePosition(value.end);
  return start && end ? { start, end } : undefined;
}

export function parseContentBlock(value: unknown): ContentBlock | undefined {
  if (!isObject(value)) return undefined;
  if (value.type === 'text') {
    const text = str(value, 'text');
    return text === undefined ? undefined : { type: 'text', text };
  }
  if (value.type === 'resource_link') {
    const uri = str(value, 'uri');
    if (uri === undefined) return undefined;
    const range = parseRange(value.range);
    return range ? { type: 'resource_link', uri, range } : { type: 'resource_link', uri };
  }
  return undefined;
}

function parseToolContent(value: unknown): ToolCallContent | undefined {
  if (!isObject(value)) return undefined;
  if (value.type === 'text') {
    const text = str(value, 'text');
    return text === undefined ? undefined : { type: 'text', text };
  }
  if (value.type === 'diff') {
    const path = str(value, 'path');
    const newText = str(value, 'newText');
    const oldText = value.oldText;
    if (path === undefined || newText === undefined) return undefined;
    if (oldText !== undefined && oldText !== null && typeof oldText !== 'string') return undefined;
    return { type: 'diff', path, oldText: oldText ?? null, newText };
  }
  return undefined;
}

function parseList<T>(value: unknown, item: (v: unknown) => T | undefined): T[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: T[] = [];
  for (const v of value) {
    const parsed = item(v);
    if (parsed !== undefined) out.push(parsed);
  }
  return out;
}

function parseLocation(value: unknown): ToolLocation | undefined {
  if (!isObject(value)) return undefined;
  const path = str(value, 'path');
  if (path === undefined) return undefined;
  const line = num(value, 'line');
  return line === undefined ? { path } : { path, line };
}

/**
 * The tool-call fields of a `tool_call` update. The update's own `kind` is the discriminator
 * (`"tool_call"`), so the tool's kind travels either nested (`update.toolCall.kind`) or as
 * `toolKind`; both spellings are accepted.
 */
function parseToolCallPatch(update: Json): ToolCallPatch | undefined {
  const source = isObject(update.toolCall) ? update.toolCall : update;
  const toolCallId = str(source, 'toolCallId') ?? str(update, 'toolCallId');
  if (toolCallId === undefined) return undefined;
  const patch: ToolCallPatch = { toolCallId };
  copyFields(patch, source, ['name', 'title'], str);
  const toolKind = oneOf(TOOL_KINDS, source === update ? update.toolKind : (source.kind ?? source.toolKind));
  if (toolKind !== undefined) patch.toolKind = toolKind;
  const status = oneOf(TOOL_STATUSES, source.status);
  if (status !== undefined) patch.status = status;
  if ('rawInput' in source) patch.rawInput = source.rawInput;
  const content = parseList(source.content, parseToolContent);
  if (content !== undefined) patch.content = content;
  const locations = parseList(source.locations, parseLocation);
  if (locations !== undefined) patch.locations = locations;
  return patch;
}

function parseUsage(value: Json): Usage | undefined {
  const used = num(value, 'used');
  const window = num(value, 'window');
  // after a compaction the server sends only the meter (`used`, `window`)
  const inputTokens = num(value, 'inputTokens') ?? (used !== undefined ? 0 : undefined);
  const outputTokens = num(value, 'outputTokens') ?? (used !== undefined ? 0 : undefined);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const usage: Usage = { inputTokens, outputTokens };
  if (used !== undefined) usage.used = used;
  if (window !== undefined) usage.window = window;
  copyFields(usage, value, ['cacheReadTokens', 'reasoningTokens'], num);
  return usage;
}

function parsePlanEntry(value: unknown): PlanEntry | undefined {
  if (!isObject(value)) return undefined;
  const content = str(value, 'content') ?? str(value, 'title');
  if (content === undefined) return undefined;
  const entry: PlanEntry = { content };
  copyFields(entry, value, ['status', 'priority'], str);
  return entry;
}

/** The update inside a `dsh/session/update` params object, or `undefined` if malformed. */
export function parseUpdate(value: unknown): SessionUpdate | undefined {
  if (!isObject(value)) return undefined;
  switch (value.kind) {
    case 'user_message': {
      const content = parseList(value.content, parseContentBlock);
      return content === undefined ? undefined : { kind: 'user_message', content };
    }
    case 'agent_message_chunk':
    case 'agent_thought_chunk': {
      const text = str(value, 'text');
      return text === undefined ? undefined : { kind: value.kind, text };
    }
    case 'tool_call': {
      const patch = parseToolCallPatch(value);
      return patch === undefined ? undefined : { kind: 'tool_call', ...patch };
    }
    case 'plan_update': {
      const entries = parseList(value.entries, parsePlanEntry);
      return entries === undefined ? undefined : { kind: 'plan_update', entries };
    }
    case 'state_update': {
      const state = oneOf(SESSION_STATES, value.state);
      if (state === undefined) return undefined;
      const update: SessionUpdate = { kind: 'state_update', state };
      const stopReason = oneOf(STOP_REASONS, value.stopReason);
      if (stopReason !== undefined) update.stopReason = stopReason;
      if (isObject(value.error)) {
        const code = str(value.error, 'code');
        const message = str(value.error, 'message') ?? code ?? 'the turn failed';
        update.error = code === undefined ? { message } : { code, message };
      }
      return update;
    }
    case 'usage_update': {
      const usage = parseUsage(value);
      return usage === undefined ? undefined : { kind: 'usage_update', ...usage };
    }
    case 'compaction_update': {
      const state = oneOf(COMPACTION_STATES, value.state);
      if (state === undefined) return undefined;
      const update: SessionUpdate = { kind: 'compaction_update', state };
      copyFields(update, value, ['reason'], str);
      copyFields(update, value, ['tokensBefore', 'tokensAfter'], num);
      copyFields(update, value, ['message'], str);
      return update;
    }
    case 'instructions_update': {
      if (!Array.isArray(value.sources)) return undefined;
      const sources = value.sources.filter((source): source is string => typeof source === 'string' && source !== '');
      return sources.length === 0 ? undefined : { kind: 'instructions_update', sources };
    }
    default:
      return undefined;
  }
}

/** `dsh/session/update` params, or `undefined` when malformed or of an unknown kind. */
export function parseSessionUpdate(value: unknown): SessionUpdateParams | undefined {
  if (!isObject(value)) return undefined;
  const sessionId = str(value, 'sessionId');
  const update = parseUpdate(value.update);
  return sessionId === undefined || update === undefined ? undefined : { sessionId, update };
}

function parseOption(value: unknown): PermissionOption | undefined {
  if (!isObject(value)) return undefined;
  const optionId = str(value, 'optionId');
  const name = str(value, 'name');
  const kind = oneOf(PERMISSION_KINDS, value.kind);
  return optionId === undefined || name === undefined || kind === undefined ? undefined : { optionId, name, kind };
}

/** `dsh/requestPermission` params, or `undefined` when malformed (no usable option, say). */
export function parsePermissionRequest(value: unknown): PermissionRequestParams | undefined {
  if (!isObject(value) || !isObject(value.toolCall)) return undefined;
  const sessionId = str(value, 'sessionId');
  const call = value.toolCall;
  const toolCallId = str(call, 'toolCallId');
  const options = parseList(value.options, parseOption);
  if (sessionId === undefined || toolCallId === undefined || options === undefined || options.length === 0) {
    return undefined;
  }
  const toolCall: PermissionToolCall = {
    toolCallId,
    title: str(call, 'title') ?? toolCallId,
    toolKind: oneOf(TOOL_KINDS, call.kind ?? call.toolKind) ?? 'other',
  };
  if ('rawInput' in call) toolCall.rawInput = call.rawInput;
  const content = parseList(call.content, parseToolContent);
  if (content !== undefined) toolCall.content = content;
  const prefix = str(value, 'prefix');
  return prefix === undefined || prefix.trim() === '' ? { sessionId, toolCall, options } : { sessionId, toolCall, options, prefix };
}

/** `dsh/saveDocuments` params (non-string uris dropped), or `undefined` when malformed. */
export function parseSaveDocuments(value: unknown): SaveDocumentsParams | undefined {
  if (!isObject(value) || !Array.isArray(value.uris)) return undefined;
  return { uris: value.uris.filter((uri): uri is string => typeof uri === 'string') };
}

/** `dsh/editor/diagnostics` params (a malformed optional field is dropped), or `undefined` when not an object. */
export function parseEditorDiagnostics(value: unknown): EditorDiagnosticsParams | undefined {
  if (value === null || value === undefined) return {};
  if (!isObject(value)) return undefined;
  const params: EditorDiagnosticsParams = {};
  const uri = str(value, 'uri');
  if (uri !== undefined) params.uri = uri;
  const version = num(value, 'version');
  if (version !== undefined && uri !== undefined) params.version = version;
  const timeoutMs = num(value, 'timeoutMs');
  if (timeoutMs !== undefined && timeoutMs > 0) params.timeoutMs = timeoutMs;
  return params;
}

/** `dsh/editor/definition|references|hover` params, or `undefined` without a uri and a position. */
export function parseEditorPosition(value: unknown): EditorPositionParams | undefined {
  if (!isObject(value) || !isObject(value.textDocument)) return undefined;
  const uri = str(value.textDocument, 'uri');
  const position = parsePosition(value.position);
  if (uri === undefined || position === undefined || position.line < 0 || position.character < 0) return undefined;
  const params: EditorPositionParams = { textDocument: { uri }, position };
  if (typeof value.includeDeclaration === 'boolean') params.includeDeclaration = value.includeDeclaration;
  return params;
}

/** `dsh/editor/symbols` params, or `undefined` without a string `query`. */
export function parseEditorSymbols(value: unknown): EditorSymbolsParams | undefined {
  if (!isObject(value)) return undefined;
  const query = str(value, 'query');
  return query === undefined ? undefined : { query };
}

export function parseSessionList(value: unknown): SessionInfo[] {
  if (!isObject(value)) return [];
  return (
    parseList(value.sessions, (v) => {
      if (!isObject(v)) return undefined;
      const sessionId = str(v, 'sessionId');
      if (sessionId === undefined) return undefined;
      const info: SessionInfo = { sessionId, cwd: str(v, 'cwd') ?? '' };
      const title = str(v, 'title');
      if (title !== undefined) info.title = title;
      for (const key of ['createdAt', 'updatedAt'] as const) {
        const when = num(v, key) ?? str(v, key);
        if (when !== undefined) info[key] = when;
      }
      return info;
    }) ?? []
  );
}

export function parsePromptResult(value: unknown): PromptResult | undefined {
  if (!isObject(value)) return undefined;
  const stopReason = oneOf(STOP_REASONS, value.stopReason);
  if (stopReason === undefined) return undefined;
  const usage = isObject(value.usage) ? parseUsage(value.usage) : undefined;
  return usage ? { stopReason, usage } : { stopReason };
}
