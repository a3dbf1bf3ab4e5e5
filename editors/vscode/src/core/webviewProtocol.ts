/**
 * Messages between the extension host and the chat webview (pure).
 *
 * The host sends snapshots and event batches (`HostMessage`); the webview sends user intents
 * (`ViewMessage`). Webview messages are checked by `parseViewMessage` before the host acts on
 * them, as for any untrusted input.
 */

import type { Attachment } from './attachments';
import type { SessionInfo } from './protocol';
import type { StatusPresentation } from './statusModel';
import type { ChatEvent, ChatState } from './viewModel';

export type HostMessage =
  | {
      type: 'reset';
      sessionId?: string;
      /** The session's working directory: paths below it are shown relative. */
      cwd?: string;
      state: ChatState;
      sessions: SessionInfo[];
      attachments: Attachment[];
      status: StatusPresentation;
    }
  | { type: 'events'; sessionId: string; events: ChatEvent[] }
  | { type: 'sessions'; sessions: SessionInfo[]; current?: string }
  | { type: 'attachments'; attachments: Attachment[] }
  | { type: 'status'; status: StatusPresentation }
  | { type: 'focusInput' };

export type ViewMessage =
  | { type: 'ready' }
  | { type: 'send'; text: string }
  | { type: 'cancel' }
  | { type: 'newSession' }
  | { type: 'refreshSessions' }
  | { type: 'resume'; sessionId: string }
  | { type: 'answer'; requestId: string; optionId?: string; prefix?: string }
  | { type: 'showDiff'; itemId: string; index: number }
  | { type: 'openLocation'; path: string; line?: number }
  | { type: 'openLink'; href: string }
  | { type: 'attachFile' }
  | { type: 'attachSelection' }
  | { type: 'removeAttachment'; index: number }
  | { type: 'copy'; text: string };

const BARE = ['ready', 'cancel', 'newSession', 'refreshSessions', 'attachFile', 'attachSelection'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A checked webview message, or `undefined` for anything else. */
export function parseViewMessage(value: unknown): ViewMessage | undefined {
  if (!isRecord(value) || typeof value.type !== 'string') return undefined;
  const type = value.type;
  if ((BARE as readonly string[]).includes(type)) return { type } as ViewMessage;
  const s = (key: string): string | undefined => (typeof value[key] === 'string' ? (value[key] as string) : undefined);
  const n = (key: string): number | undefined =>
    typeof value[key] === 'number' && Number.isInteger(value[key]) && (value[key] as number) >= 0 ? (value[key] as number) : undefined;
  switch (type) {
    case 'send':
    case 'copy': {
      const text = s('text');
      return text === undefined ? undefined : { type, text };
    }
    case 'resume': {
      const sessionId = s('sessionId');
      return sessionId === undefined ? undefined : { type, sessionId };
    }
    case 'answer': {
      const requestId = s('requestId');
      if (requestId === undefined) return undefined;
      const optionId = s('optionId');
      if (optionId === undefined) return { type, requestId };
      const prefix = s('prefix');
      return prefix === undefined ? { type, requestId, optionId } : { type, requestId, optionId, prefix };
    }
    case 'showDiff': {
      const itemId = s('itemId');
      const index = n('index');
      return itemId === undefined || index === undefined ? undefined : { type, itemId, index };
    }
    case 'openLocation': {
      const path = s('path');
      if (path === undefined) return undefined;
      const line = n('line');
      return line === undefined ? { type, path } : { type, path, line };
    }
    case 'openLink': {
      const href = s('href');
      return href === undefined ? undefined : { type, href };
    }
    case 'removeAttachment': {
      const index = n('index');
      return index === undefined ? undefined : { type, index };
    }
    default:
      return undefined;
  }
}
