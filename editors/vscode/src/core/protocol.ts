/**
 * The `dsh/*` wire contract as the extension sees it (pure: no `vscode`, no DOM).
 *
 * Method names, the capability the client advertises, and the shapes of every request,
 * result and notification. Inbound data is checked by the parsers in `parse.ts`.
 */

export const Methods = {
  sessionNew: 'dsh/session/new',
  sessionList: 'dsh/session/list',
  sessionResume: 'dsh/session/resume',
  prompt: 'dsh/prompt',
  cancel: 'dsh/cancel',
  status: 'dsh/status',
  sessionUpdate: 'dsh/session/update',
  requestPermission: 'dsh/requestPermission',
  saveDocuments: 'dsh/saveDocuments',
  editorDiagnostics: 'dsh/editor/diagnostics',
  editorDefinition: 'dsh/editor/definition',
  editorReferences: 'dsh/editor/references',
  editorSymbols: 'dsh/editor/symbols',
  editorHover: 'dsh/editor/hover',
} as const;

/** What the client puts under `capabilities.experimental.dsh` in `initialize`. */
export const CLIENT_CAPABILITY = {
  version: 1,
  sessionUpdates: true,
  permissions: true,
  saveDocuments: true,
  /** The `dsh/editor/*` requests this client answers from the editor's other language servers. */
  editor: { diagnostics: true, definition: true, references: true, symbols: true, hover: true },
} as const;

export interface Position {
  line: number;
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'resource_link'; uri: string; range?: Range };

export const STOP_REASONS = ['end_turn', 'max_tokens', 'max_turn_requests', 'cancelled', 'refusal'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export const TOOL_KINDS = ['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'other'] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

export const TOOL_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'cancelled'] as const;
export type ToolStatus = (typeof TOOL_STATUSES)[number];

export const PERMISSION_KINDS = ['allow_once', 'allow_always', 'reject_once', 'reject_always'] as const;
export type PermissionKind = (typeof PERMISSION_KINDS)[number];

export const SESSION_STATES = ['running', 'idle', 'requires_action'] as const;
export const COMPACTION_STATES = ['queued', 'started', 'completed', 'failed'] as const;
export type SessionState = (typeof SESSION_STATES)[number];

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  reasoningTokens?: number;
  /** Tokens the session's context holds now (the context meter). */
  used?: number;
  /** The model's context window. */
  window?: number;
}

export type ToolCallContent =
  | { type: 'text'; text: string }
  | { type: 'diff'; path: string; oldText?: string | null; newText: string };

export interface ToolLocation {
  path: string;
  line?: number;
}

/** A `tool_call` upsert: fields left out are unchanged. */
export interface ToolCallPatch {
  toolCallId: string;
  name?: string;
  title?: string;
  toolKind?: ToolKind;
  status?: ToolStatus;
  rawInput?: unknown;
  content?: ToolCallContent[];
  locations?: ToolLocation[];
}

export interface PlanEntry {
  content: string;
  status?: string;
  priority?: string;
}

export type SessionUpdate =
  | { kind: 'user_message'; content: ContentBlock[] }
  | { kind: 'agent_message_chunk'; text: string }
  | { kind: 'agent_thought_chunk'; text: string }
  | ({ kind: 'tool_call' } & ToolCallPatch)
  | { kind: 'plan_update'; entries: PlanEntry[] }
  | { kind: 'state_update'; state: SessionState; stopReason?: StopReason; error?: TurnError }
  | ({ kind: 'usage_update' } & Usage)
  | ({ kind: 'compaction_update' } & Compaction)
  | { kind: 'instructions_update'; sources: string[] };

/** A `compaction_update`: a summary of the oldest history started, completed or failed. */
export interface Compaction {
  state: (typeof COMPACTION_STATES)[number];
  /** `threshold`, `request` or `overflow` (when started). */
  reason?: string;
  tokensBefore?: number;
  tokensAfter?: number;
  /** Why it failed (the history is then unchanged). */
  message?: string;
}

/** Why a turn failed: the harness error code (`AUTH`, `RATE_LIMIT`…) and a message for people. */
export interface TurnError {
  code?: string;
  message: string;
}

export interface SessionUpdateParams {
  sessionId: string;
  update: SessionUpdate;
}

export interface SessionInfo {
  sessionId: string;
  cwd: string;
  title?: string;
  /** Milliseconds since the Unix epoch (an ISO string is accepted too). */
  createdAt?: number | string;
  updatedAt?: number | string;
}

export interface PermissionOption {
  optionId: string;
  name: string;
  kind: PermissionKind;
}

export interface PermissionToolCall {
  toolCallId: string;
  title: string;
  toolKind: ToolKind;
  rawInput?: unknown;
  content?: ToolCallContent[];
}

export interface PermissionRequestParams {
  sessionId: string;
  toolCall: PermissionToolCall;
  options: PermissionOption[];
  /** A shell command's question: the command prefix `allow_always` would remember. */
  prefix?: string;
}

/** `prefix`: with `allow_always` on a shell command, the prefix the user confirmed or edited. */
export type PermissionOutcome = { outcome: 'selected'; optionId: string; prefix?: string } | { outcome: 'cancelled' };
export interface PermissionResponse {
  outcome: PermissionOutcome;
}

/** `dsh/saveDocuments` (server → client): save these documents (the agent edited them). */
export interface SaveDocumentsParams {
  uris: string[];
}
/** The uris actually saved; one left out stays pending on the server for the next turn. */
export interface SaveDocumentsResult {
  saved: string[];
}

export interface PromptParams {
  sessionId: string;
  prompt: ContentBlock[];
}
export interface PromptResult {
  stopReason: StopReason;
  usage?: Usage;
}
export interface SessionNewParams {
  cwd?: string;
}
export interface SessionNewResult {
  sessionId: string;
}
export interface SessionListResult {
  sessions: SessionInfo[];
}
export interface SessionResumeParams {
  sessionId: string;
}
export interface CancelParams {
  sessionId: string;
}

// ---------------------------------------------------------------------------------------------
// `dsh/editor/*` (server → client): the editor's other language servers lent to the agent.
// Positions are in the connection's negotiated position encoding; uris are `file://` uris.

/** The position encodings LSP names (`PositionEncodingKind`). */
export type PositionEncoding = 'utf-8' | 'utf-16' | 'utf-32';

export interface EditorDiagnosticsParams {
  uri?: string;
  version?: number;
  timeoutMs?: number;
}
/** An LSP `Diagnostic` as the wire carries it (`severity` 1 error … 4 hint). */
export interface WireDiagnostic {
  range: Range;
  severity?: 1 | 2 | 3 | 4;
  code?: string | number;
  source?: string;
  message: string;
}
export interface EditorDiagnosticsItem {
  uri: string;
  /** The document version these diagnostics describe, `null` when the client cannot tell. */
  version: number | null;
  /** `false` when `timeoutMs` passed before the language servers reported on the asked version. */
  complete: boolean;
  diagnostics: WireDiagnostic[];
}
export interface EditorDiagnosticsResult {
  items: EditorDiagnosticsItem[];
}

/** `dsh/editor/definition`, `dsh/editor/references` and `dsh/editor/hover` params. */
export interface EditorPositionParams {
  textDocument: { uri: string };
  position: Position;
  /** `references` only (default `true`). */
  includeDeclaration?: boolean;
}
export interface WireLocation {
  uri: string;
  range: Range;
}
export interface EditorLocationsResult {
  locations: WireLocation[];
}

export interface EditorSymbolsParams {
  query: string;
}
export interface WireSymbol {
  name: string;
  /** The LSP `SymbolKind` number (1 file … 26 type parameter). */
  kind: number;
  containerName?: string;
  location: { uri: string; range?: Range };
}
export interface EditorSymbolsResult {
  symbols: WireSymbol[];
}

export interface EditorHoverResult {
  /** Markdown; several servers' hovers joined by a blank line; `""` when there is none. */
  contents: string;
}
