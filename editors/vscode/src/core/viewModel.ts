/**
 * The chat view model and its reducer (pure; shared by the extension host and the webview).
 *
 * `reduce(state, event)` folds one chat event — a server `dsh/session/update`, a local prompt,
 * the end of a turn, a permission request or its answer — into a new immutable `ChatState`
 * and reports which items changed, so a renderer touches only those. Both sides run the same
 * reducer over the same events, so the webview's copy never drifts from the host's.
 */

import type {
  Compaction,
  ContentBlock,
  PermissionOption,
  PermissionOutcome,
  PermissionToolCall,
  PlanEntry,
  SessionUpdate,
  StopReason,
  ToolCallContent,
  ToolCallPatch,
  ToolKind,
  ToolLocation,
  ToolStatus,
  TurnError,
  Usage,
} from './protocol';

export interface ToolCallView {
  toolCallId: string;
  name: string;
  title: string;
  toolKind: ToolKind;
  status: ToolStatus;
  rawInput?: unknown;
  content: ToolCallContent[];
  locations: ToolLocation[];
}

export type PermissionStatus = 'pending' | 'selected' | 'cancelled' | 'withdrawn';

export type ChatItem =
  | { type: 'user'; id: string; content: ContentBlock[]; pending: boolean }
  | { type: 'agent'; id: string; text: string }
  | { type: 'thought'; id: string; text: string }
  | { type: 'tool'; id: string; call: ToolCallView }
  | { type: 'plan'; id: string; entries: PlanEntry[] }
  | { type: 'compaction'; id: string; compaction: Compaction }
  | { type: 'instructions'; id: string; sources: string[] }
  | {
      type: 'permission';
      id: string;
      requestId: string;
      toolCall: PermissionToolCall;
      options: PermissionOption[];
      status: PermissionStatus;
      optionId?: string;
      /** A shell command's question: the prefix "always allow" offers (editable). */
      prefix?: string;
      /** The prefix the user confirmed with "always allow". */
      answeredPrefix?: string;
    }
  | { type: 'turn'; id: string; stopReason?: StopReason; usage?: Usage; error?: TurnError };

export type ChatEvent =
  | { type: 'update'; update: SessionUpdate }
  | { type: 'userPrompt'; content: ContentBlock[] }
  | { type: 'turnEnded'; stopReason: StopReason; usage?: Usage }
  | { type: 'turnFailed'; message: string; code?: string }
  | { type: 'permissionRequested'; requestId: string; toolCall: PermissionToolCall; options: PermissionOption[]; prefix?: string }
  | { type: 'permissionResolved'; requestId: string; outcome: PermissionOutcome | { outcome: 'withdrawn' } }
  | { type: 'reset' };

export interface ChatState {
  readonly items: readonly ChatItem[];
  /** Item id → position in `items`. */
  readonly index: Readonly<Record<string, number>>;
  readonly running: boolean;
  readonly requiresAction: boolean;
  /** Whether items arrived since the last turn footer. */
  readonly turnOpen: boolean;
  /** The latest `usage_update` of the open turn. */
  readonly turnUsage?: Usage;
  readonly nextId: number;
}

export interface Reduced {
  state: ChatState;
  /** Ids of items added or changed by the event (in `items` order). */
  changed: string[];
}

export const EMPTY_STATE: ChatState = {
  items: [],
  index: {},
  running: false,
  requiresAction: false,
  turnOpen: false,
  nextId: 1,
};

function append(state: ChatState, item: ChatItem, extra: Partial<ChatState> = {}): Reduced {
  const items = [...state.items, item];
  return {
    state: { ...state, ...extra, items, index: { ...state.index, [item.id]: items.length - 1 } },
    changed: [item.id],
  };
}

function replaceAt(state: ChatState, position: number, item: ChatItem, extra: Partial<ChatState> = {}): Reduced {
  const items = state.items.slice();
  items[position] = item;
  return { state: { ...state, ...extra, items }, changed: [item.id] };
}

function lastIndexOf(items: readonly ChatItem[], type: ChatItem['type']): number {
  for (let i = items.length - 1; i >= 0; i--) if (items[i]?.type === type) return i;
  return -1;
}

function freshId(state: ChatState, prefix: string): [string, number] {
  return [`${prefix}${state.nextId}`, state.nextId + 1];
}

function appendText(state: ChatState, type: 'agent' | 'thought', text: string): Reduced {
  const last = state.items[state.items.length - 1];
  if (last !== undefined && last.type === type) {
    return replaceAt(state, state.items.length - 1, { ...last, text: last.text + text }, { turnOpen: true });
  }
  const [id, nextId] = freshId(state, type === 'agent' ? 'a' : 'r');
  return append(state, { type, id, text }, { nextId, turnOpen: true });
}

function mergeToolCall(previous: ToolCallView | undefined, patch: ToolCallPatch): ToolCallView {
  const base: ToolCallView = previous ?? {
    toolCallId: patch.toolCallId,
    name: patch.name ?? 'tool',
    title: patch.title ?? patch.name ?? patch.toolCallId,
    toolKind: 'other',
    status: 'pending',
    content: [],
    locations: [],
  };
  const merged: ToolCallView = { ...base };
  if (patch.name !== undefined) merged.name = patch.name;
  if (patch.title !== undefined) merged.title = patch.title;
  if (patch.toolKind !== undefined) merged.toolKind = patch.toolKind;
  if (patch.status !== undefined) merged.status = patch.status;
  if (patch.rawInput !== undefined) merged.rawInput = patch.rawInput;
  if (patch.content !== undefined) merged.content = patch.content;
  if (patch.locations !== undefined) merged.locations = patch.locations;
  return merged;
}

function upsertTool(state: ChatState, patch: ToolCallPatch): Reduced {
  const id = `tool:${patch.toolCallId}`;
  const position = state.index[id];
  const existing = position === undefined ? undefined : state.items[position];
  if (existing !== undefined && existing.type === 'tool' && position !== undefined) {
    return replaceAt(state, position, { ...existing, call: mergeToolCall(existing.call, patch) }, { turnOpen: true });
  }
  return append(state, { type: 'tool', id, call: mergeToolCall(undefined, patch) }, { turnOpen: true });
}

/** Close the open turn with a footer, or fold the outcome into the footer that closed it. */
function closeTurn(
  state: ChatState,
  outcome: { stopReason?: StopReason; usage?: Usage; error?: TurnError },
): Reduced {
  const usage = outcome.usage ?? state.turnUsage;
  const settled = { running: false, requiresAction: false, turnOpen: false, turnUsage: undefined };
  const last = state.items[state.items.length - 1];
  if (!state.turnOpen && last !== undefined && last.type === 'turn') {
    const merged: ChatItem = { ...last };
    if (outcome.stopReason !== undefined) merged.stopReason = outcome.stopReason;
    if (usage !== undefined) merged.usage = usage;
    if (outcome.error !== undefined) merged.error = outcome.error;
    return replaceAt(state, state.items.length - 1, merged, settled);
  }
  if (!state.turnOpen && outcome.error === undefined) {
    return { state: { ...state, ...settled }, changed: [] };
  }
  const [id, nextId] = freshId(state, 't');
  const footer: ChatItem = { type: 'turn', id };
  if (outcome.stopReason !== undefined) footer.stopReason = outcome.stopReason;
  if (usage !== undefined) footer.usage = usage;
  if (outcome.error !== undefined) footer.error = outcome.error;
  return append(state, footer, { ...settled, nextId });
}

function applyUpdate(state: ChatState, update: SessionUpdate): Reduced {
  switch (update.kind) {
    case 'user_message': {
      // The echo of a prompt this client just sent confirms the local item instead of repeating
      // it; the local content stays (it has the attachments exactly as the user sent them).
      const pendingAt = state.items.findIndex((item) => item.type === 'user' && item.pending);
      if (pendingAt >= 0) {
        const pending = state.items[pendingAt];
        if (pending !== undefined && pending.type === 'user') return replaceAt(state, pendingAt, { ...pending, pending: false });
      }
      const [id, nextId] = freshId(state, 'u');
      return append(state, { type: 'user', id, content: update.content, pending: false }, { nextId, turnOpen: true });
    }
    case 'agent_message_chunk':
      return appendText(state, 'agent', update.text);
    case 'agent_thought_chunk':
      return appendText(state, 'thought', update.text);
    case 'tool_call': {
      const { kind: _kind, ...patch } = update;
      return upsertTool(state, patch);
    }
    case 'plan_update': {
      const planAt = lastIndexOf(state.items, 'plan');
      const lastFooter = lastIndexOf(state.items, 'turn');
      const plan = state.items[planAt];
      if (plan !== undefined && plan.type === 'plan' && planAt > lastFooter) {
        return replaceAt(state, planAt, { ...plan, entries: update.entries });
      }
      const [id, nextId] = freshId(state, 'p');
      return append(state, { type: 'plan', id, entries: update.entries }, { nextId, turnOpen: true });
    }
    case 'state_update':
      if (update.state === 'idle') {
        const outcome: { stopReason?: StopReason; error?: TurnError } = {};
        if (update.stopReason !== undefined) outcome.stopReason = update.stopReason;
        if (update.error !== undefined) outcome.error = update.error;
        return closeTurn(state, outcome);
      }
      return {
        state: { ...state, running: true, requiresAction: update.state === 'requires_action' },
        changed: [],
      };
    case 'usage_update': {
      const { kind: _kind, ...usage } = update;
      return { state: { ...state, turnUsage: usage }, changed: [] };
    }
    case 'compaction_update': {
      const { kind: _kind, ...compaction } = update;
      // "started" moves a "queued" row on; "completed"/"failed" settle the row "queued" or
      // "started" opened
      const at = lastIndexOf(state.items, 'compaction');
      const open = state.items[at];
      const settles =
        compaction.state === 'started' ? ['queued'] : compaction.state === 'queued' ? [] : ['queued', 'started'];
      if (open !== undefined && open.type === 'compaction' && settles.includes(open.compaction.state)) {
        const merged: Compaction = { ...open.compaction, ...compaction };
        if (compaction.state === 'failed') delete merged.tokensAfter;
        return replaceAt(state, at, { ...open, compaction: merged });
      }
      const [id, nextId] = freshId(state, 'c');
      return append(state, { type: 'compaction', id, compaction }, { nextId });
    }
    case 'instructions_update': {
      const [id, nextId] = freshId(state, 'i');
      return append(state, { type: 'instructions', id, sources: update.sources }, { nextId, turnOpen: true });
    }
  }
}

/** Fold one event into the state; never throws, never mutates `state`. */
export function reduce(state: ChatState, event: ChatEvent): Reduced {
  switch (event.type) {
    case 'reset':
      return { state: EMPTY_STATE, changed: [] };
    case 'update':
      return applyUpdate(state, event.update);
    case 'userPrompt': {
      const [id, nextId] = freshId(state, 'u');
      return append(state, { type: 'user', id, content: event.content, pending: true }, {
        nextId,
        running: true,
        turnOpen: true,
        turnUsage: undefined,
      });
    }
    case 'turnEnded':
      return event.usage === undefined
        ? closeTurn(state, { stopReason: event.stopReason })
        : closeTurn(state, { stopReason: event.stopReason, usage: event.usage });
    case 'turnFailed': {
      const error = event.code === undefined ? { message: event.message } : { message: event.message, code: event.code };
      const cleared = state.items.map((item) => (item.type === 'user' && item.pending ? { ...item, pending: false } : item));
      return closeTurn({ ...state, items: cleared }, { error });
    }
    case 'permissionRequested': {
      const id = `perm:${event.requestId}`;
      const card: ChatItem = { type: 'permission', id, requestId: event.requestId, toolCall: event.toolCall, options: event.options, status: 'pending' };
      if (event.prefix !== undefined) card.prefix = event.prefix;
      return append(state, card, { requiresAction: true, turnOpen: true });
    }
    case 'permissionResolved': {
      const id = `perm:${event.requestId}`;
      const position = state.index[id];
      const item = position === undefined ? undefined : state.items[position];
      if (item === undefined || item.type !== 'permission' || position === undefined || item.status !== 'pending') {
        return { state, changed: [] };
      }
      const resolved: ChatItem =
        event.outcome.outcome === 'selected'
          ? { ...item, status: 'selected', optionId: event.outcome.optionId }
          : { ...item, status: event.outcome.outcome };
      if (event.outcome.outcome === 'selected' && event.outcome.prefix !== undefined) resolved.answeredPrefix = event.outcome.prefix;
      const stillPending = state.items.some((other) => other !== item && other.type === 'permission' && other.status === 'pending');
      return replaceAt(state, position, resolved, { requiresAction: stillPending });
    }
  }
}

/** Fold many events; `changed` is the union in first-change order. */
export function reduceAll(state: ChatState, events: readonly ChatEvent[]): Reduced {
  let current = state;
  const changed = new Set<string>();
  for (const event of events) {
    const result = reduce(current, event);
    current = result.state;
    for (const id of result.changed) changed.add(id);
  }
  return { state: current, changed: [...changed] };
}

/** The pending permission cards (newest last). */
export function pendingPermissions(state: ChatState): string[] {
  return state.items.flatMap((item) => (item.type === 'permission' && item.status === 'pending' ? [item.requestId] : []));
}
