/**
 * The chat webview's script: applies host messages to its copy of the view model, renders
 * changes once per animation frame, and turns clicks and keys into `ViewMessage`s.
 */

import type { Attachment } from '../core/attachments';
import type { SessionInfo } from '../core/protocol';
import type { StatusPresentation } from '../core/statusModel';
import { type ChatState, EMPTY_STATE, reduceAll } from '../core/viewModel';
import type { HostMessage, ViewMessage } from '../core/webviewProtocol';
import { ChatRenderer } from './render';

declare function acquireVsCodeApi(): { postMessage(message: unknown): void };

const api = acquireVsCodeApi();
const post = (message: ViewMessage): void => api.postMessage(message);

function byId<T extends HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`chat view: #${id} is missing`);
  return node as T;
}

const log = byId<HTMLElement>('log');
const input = byId<HTMLTextAreaElement>('input');
const sendButton = byId<HTMLButtonElement>('send');
const cancelButton = byId<HTMLButtonElement>('cancel');
const sessionSelect = byId<HTMLSelectElement>('sessions');
const attachmentBar = byId<HTMLElement>('attachments');
const serverStatus = byId<HTMLElement>('server-status');
const renderer = new ChatRenderer(log);

let state: ChatState = EMPTY_STATE;
let sessionId: string | undefined;
let sessions: SessionInfo[] = [];
let pending = new Set<string>();
let frame: number | undefined;

function nearBottom(): boolean {
  return log.scrollTop + log.clientHeight >= log.scrollHeight - 48;
}

function renderFrame(): void {
  frame = undefined;
  const stick = nearBottom();
  renderer.update(state, pending);
  pending = new Set();
  renderRunning();
  if (stick) log.scrollTop = log.scrollHeight;
}

function schedule(changed: readonly string[]): void {
  for (const id of changed) pending.add(id);
  frame ??= requestAnimationFrame(renderFrame);
}

function renderRunning(): void {
  cancelButton.hidden = !state.running;
  sendButton.disabled = state.running;
  document.body.classList.toggle('running', state.running);
}

function renderSessions(): void {
  const options: HTMLOptionElement[] = [];
  if (sessionId === undefined) options.push(new Option('New session', '', true, true));
  if (sessionId !== undefined && !sessions.some((s) => s.sessionId === sessionId)) options.push(new Option('Current session', sessionId, true, true));
  for (const info of sessions) {
    const when = info.updatedAt ?? info.createdAt;
    const name = info.title ?? `Session ${info.sessionId.slice(0, 8)}`;
    const label = `${name}${when === undefined ? '' : ` — ${new Date(when).toLocaleString()}`}`;
    options.push(new Option(label, info.sessionId, false, info.sessionId === sessionId));
  }
  sessionSelect.replaceChildren(...options);
}

function renderAttachments(attachments: readonly Attachment[]): void {
  attachmentBar.replaceChildren(
    ...attachments.map((attachment, index) => {
      const chip = document.createElement('span');
      chip.className = 'chip';
      chip.textContent = `@${attachment.label} `;
      const remove = document.createElement('button');
      remove.className = 'chip-remove';
      remove.textContent = '×';
      remove.title = 'Remove';
      remove.dataset.action = 'removeAttachment';
      remove.dataset.index = String(index);
      chip.append(remove);
      return chip;
    }),
  );
}

function renderStatus(status: StatusPresentation): void {
  serverStatus.hidden = status.severity === 'normal';
  serverStatus.textContent = status.tooltip;
  serverStatus.className = `server-status severity-${status.severity}`;
}

function onHostMessage(message: HostMessage): void {
  switch (message.type) {
    case 'reset':
      state = message.state;
      sessionId = message.sessionId;
      sessions = message.sessions;
      pending = new Set();
      renderer.reset(state, message.cwd);
      renderSessions();
      renderAttachments(message.attachments);
      renderStatus(message.status);
      renderRunning();
      log.scrollTop = log.scrollHeight;
      document.body.dataset.ready = 'true'; // listeners are attached and the snapshot is shown
      return;
    case 'events': {
      if (message.sessionId !== sessionId) return;
      const result = reduceAll(state, message.events);
      state = result.state;
      schedule(result.changed);
      if (result.changed.length === 0) renderRunning();
      return;
    }
    case 'sessions':
      sessions = message.sessions;
      if (message.current !== undefined) sessionId = message.current;
      renderSessions();
      return;
    case 'attachments':
      renderAttachments(message.attachments);
      return;
    case 'status':
      renderStatus(message.status);
      return;
    case 'focusInput':
      input.focus();
      return;
  }
}

window.addEventListener('message', (event: MessageEvent<HostMessage>) => onHostMessage(event.data));

function send(): void {
  const text = input.value;
  if (text.trim() === '' && attachmentBar.childElementCount === 0) return;
  if (state.running) return;
  post({ type: 'send', text });
  input.value = '';
}

input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  } else if (event.key === 'Escape' && state.running) {
    post({ type: 'cancel' });
  }
});
sendButton.addEventListener('click', send);
cancelButton.addEventListener('click', () => post({ type: 'cancel' }));
byId('new-session').addEventListener('click', () => post({ type: 'newSession' }));
byId('refresh-sessions').addEventListener('click', () => post({ type: 'refreshSessions' }));
byId('attach-file').addEventListener('click', () => post({ type: 'attachFile' }));
byId('attach-selection').addEventListener('click', () => post({ type: 'attachSelection' }));
sessionSelect.addEventListener('change', () => {
  const chosen = sessionSelect.value;
  if (chosen === '') post({ type: 'newSession' });
  else if (chosen !== sessionId) post({ type: 'resume', sessionId: chosen });
});

document.addEventListener('click', (event) => {
  const target = (event.target as HTMLElement | null)?.closest<HTMLElement>('[data-action], a[data-href]');
  if (!target) return;
  event.preventDefault();
  const data = target.dataset;
  if (target.tagName === 'A' && data.href !== undefined) {
    post({ type: 'openLink', href: data.href });
    return;
  }
  switch (data.action) {
    case 'copy': {
      const code = target.closest('.code-block')?.querySelector('code')?.textContent ?? '';
      post({ type: 'copy', text: code });
      return;
    }
    case 'showDiff':
      post({ type: 'showDiff', itemId: data.item ?? '', index: Number(data.index ?? 0) });
      return;
    case 'answer':
      if (data.request !== undefined) {
        const prefix = data.option === 'allow_always' ? target.closest('.item-permission')?.querySelector<HTMLInputElement>('input.prefix-input')?.value : undefined;
        post({ type: 'answer', requestId: data.request, ...(data.option === undefined ? {} : { optionId: data.option }), ...(prefix === undefined ? {} : { prefix }) });
      }
      return;
    case 'openLocation':
      if (data.path !== undefined) post({ type: 'openLocation', path: data.path, ...(data.line === undefined ? {} : { line: Number(data.line) }) });
      return;
    case 'removeAttachment':
      post({ type: 'removeAttachment', index: Number(data.index ?? 0) });
      return;
  }
});

post({ type: 'ready' });
