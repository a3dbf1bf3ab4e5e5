/**
 * DOM rendering of chat items (webview side).
 *
 * Items are only ever appended, so each item owns one element keyed by its id and only
 * changed items are re-rendered. Agent text renders through `IncrementalMarkdown` (finished
 * blocks appended once, the unfinished tail replaced); reasoning text is appended to a text
 * node. All model-provided text reaches the DOM escaped (markdown renderer) or as
 * `textContent`; buttons carry `data-action` attributes handled by one delegated listener.
 */

import { lineDiff, optionStyle, relativeText } from '../core/lineDiff';
import { IncrementalMarkdown, turnErrorHtml } from '../core/markdown';
import { compactionText, instructionsText } from '../core/notices';
import type { ContentBlock, ToolCallContent, Usage } from '../core/protocol';
import { cardLayout } from '../core/toolCards';
import type { ChatItem, ChatState } from '../core/viewModel';

const TEXT_LIMIT = 4000;
const DIFF_LINES = 40;

const STATUS_ICONS: Record<string, string> = {
  pending: '○',
  in_progress: '◐',
  completed: '✓',
  failed: '✗',
  cancelled: '⊘',
};

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(label: string, action: string, data: Record<string, string | number>, className = ''): HTMLButtonElement {
  const node = el('button', className, label);
  node.dataset.action = action;
  for (const [key, value] of Object.entries(data)) node.dataset[key] = String(value);
  return node;
}

function shortNumber(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

export function usageText(usage: Usage): string {
  const parts = [`in ${shortNumber(usage.inputTokens)}`, `out ${shortNumber(usage.outputTokens)}`];
  if (usage.cacheReadTokens) parts.push(`cached ${shortNumber(usage.cacheReadTokens)}`);
  if (usage.reasoningTokens) parts.push(`reasoning ${shortNumber(usage.reasoningTokens)}`);
  if (usage.used !== undefined && usage.window !== undefined && usage.window > 0) {
    const pct = Math.round((100 * usage.used) / usage.window);
    parts.push(`context ${shortNumber(usage.used)}/${shortNumber(usage.window)} (${pct}%)`);
  }
  return parts.join(' · ');
}

function truncated(text: string): string {
  return text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT)}\n… (${text.length - TEXT_LIMIT} more characters)` : text;
}

function linkLabel(block: Extract<ContentBlock, { type: 'resource_link' }>): string {
  const name = decodeURIComponent(block.uri.split('/').pop() ?? block.uri);
  if (block.range === undefined) return name;
  const first = block.range.start.line + 1;
  const last = block.range.end.line + 1;
  return first === last ? `${name}:${first}` : `${name}:${first}-${last}`;
}

function miniDiff(oldText: string | null | undefined, newText: string): HTMLElement {
  const pre = el('pre', 'mini-diff');
  const lines = lineDiff(oldText, newText);
  for (const [kind, text] of lines.slice(0, DIFF_LINES)) pre.append(el('span', kind, `${text}\n`));
  if (lines.length > DIFF_LINES) pre.append(el('span', 'more', `… ${lines.length - DIFF_LINES} more lines`));
  return pre;
}

/** `path` relative to `cwd` when it lies below it (the server reports absolute paths). */
export function displayPath(path: string, cwd: string | undefined): string {
  if (cwd === undefined || cwd === '') return path;
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(base) ? path.slice(base.length) : path;
}

interface ContentOptions {
  /** Text parts (what the model was sent) go in a collapsed "Output". */
  readonly folded?: boolean;
  /** Diffs show as their path and "Show diff" only (another card shows the lines). */
  readonly diffHeadsOnly?: boolean;
}

function renderToolContent(container: HTMLElement, itemId: string, content: readonly ToolCallContent[], cwd: string | undefined, options: ContentOptions = {}): void {
  let diffIndex = 0;
  for (const part of content) {
    if (part.type === 'text') {
      if (part.text.trim() === '') continue;
      const text = el('pre', 'tool-text', truncated(relativeText(part.text, cwd)));
      if (options.folded === true) {
        // what the model was sent (a file's text): out of the way unless asked for
        const details = el('details', 'tool-output');
        details.append(el('summary', '', 'Output'), text);
        container.append(details);
      } else container.append(text);
      continue;
    }
    const block = el('div', 'diff');
    const head = el('div', 'diff-head');
    head.append(el('span', 'diff-path', displayPath(part.path, cwd)), button('Show diff', 'showDiff', { item: itemId, index: diffIndex++ }, 'small'));
    block.append(head);
    if (options.diffHeadsOnly !== true) block.append(miniDiff(part.oldText, part.newText));
    container.append(block);
  }
}

export type Post = (message: unknown) => void;

export class ChatRenderer {
  private readonly elements = new Map<string, HTMLElement>();
  private readonly markdown = new Map<string, { renderer: IncrementalMarkdown; stable: HTMLElement; tail: HTMLElement }>();
  private readonly thoughts = new Map<string, { text: Text; length: number; summary: HTMLElement }>();

  private cwd: string | undefined;

  constructor(private readonly log: HTMLElement) {}

  /** Render every item of `state` from scratch; paths below `cwd` show relative. */
  reset(state: ChatState, cwd?: string): void {
    this.cwd = cwd;
    this.log.replaceChildren();
    this.elements.clear();
    this.markdown.clear();
    this.thoughts.clear();
    if (state.items.length === 0) this.log.append(el('div', 'empty', 'Ask a question, attach files with @path, or resume a session from the list above.'));
    this.update(state, state.items.map((item) => item.id));
  }

  /** Re-render the items in `changed`; new ones are appended. */
  update(state: ChatState, changed: Iterable<string>): void {
    for (const id of changed) {
      const position = state.index[id];
      const item = position === undefined ? undefined : state.items[position];
      if (item === undefined) continue;
      let node = this.elements.get(id);
      if (node === undefined) {
        this.log.querySelector(':scope > .empty')?.remove();
        node = el('div', `item item-${item.type}`);
        node.dataset.id = id;
        this.elements.set(id, node);
        this.log.append(node);
      }
      this.renderItem(node, item);
    }
  }

  private renderItem(node: HTMLElement, item: ChatItem): void {
    switch (item.type) {
      case 'user':
        return this.renderUser(node, item);
      case 'agent':
        return this.renderAgent(node, item.id, item.text);
      case 'thought':
        return this.renderThought(node, item.id, item.text);
      case 'tool':
        return this.renderTool(node, item);
      case 'plan': {
        const list = el('ul', 'plan');
        for (const entry of item.entries) {
          const li = el('li', `plan-${entry.status ?? 'pending'}`);
          li.append(el('span', 'plan-mark', entry.status === 'completed' ? '☑' : entry.status === 'in_progress' ? '◐' : '☐'), document.createTextNode(` ${entry.content}`));
          list.append(li);
        }
        node.replaceChildren(el('div', 'label', 'Plan'), list);
        return;
      }
      case 'compaction':
        node.className = `item item-compaction compaction-${item.compaction.state}`;
        node.replaceChildren(el('span', 'notice', compactionText(item.compaction)));
        return;
      case 'instructions':
        node.replaceChildren(el('span', 'notice', instructionsText(item.sources)));
        return;
      case 'permission':
        return this.renderPermission(node, item);
      case 'turn':
        return this.renderTurn(node, item);
    }
  }

  private renderUser(node: HTMLElement, item: Extract<ChatItem, { type: 'user' }>): void {
    node.classList.toggle('pending', item.pending);
    const body = el('div', 'user-text');
    const chips = el('div', 'chips');
    for (const block of item.content) {
      if (block.type === 'text') body.append(el('div', '', block.text));
      else chips.append(el('span', 'chip', `@${linkLabel(block)}`));
    }
    node.replaceChildren(body, ...(chips.childElementCount ? [chips] : []));
  }

  private renderAgent(node: HTMLElement, id: string, text: string): void {
    let entry = this.markdown.get(id);
    if (entry === undefined) {
      entry = { renderer: new IncrementalMarkdown(), stable: el('div', 'md-stable'), tail: el('div', 'md-tail') };
      node.classList.add('markdown');
      node.replaceChildren(entry.stable, entry.tail);
      this.markdown.set(id, entry);
    }
    const { append, tail } = entry.renderer.update(text);
    if (append) entry.stable.insertAdjacentHTML('beforeend', append);
    entry.tail.innerHTML = tail;
  }

  private renderThought(node: HTMLElement, id: string, text: string): void {
    let entry = this.thoughts.get(id);
    if (entry === undefined) {
      const details = el('details', 'thought');
      const summary = el('summary', '', 'Reasoning');
      const body = el('div', 'thought-text');
      const textNode = document.createTextNode('');
      body.append(textNode);
      details.append(summary, body);
      node.replaceChildren(details);
      entry = { text: textNode, length: 0, summary };
      this.thoughts.set(id, entry);
    }
    if (text.length > entry.length) {
      entry.text.appendData(text.slice(entry.length));
      entry.length = text.length;
      entry.summary.textContent = `Reasoning (${shortNumber(text.length)} chars)`;
    }
  }

  private renderTool(node: HTMLElement, item: Extract<ChatItem, { type: 'tool' }>): void {
    const call = item.call;
    node.className = `item item-tool card status-${call.status}`;
    const head = el('div', 'card-head');
    head.append(el('span', 'status-icon', STATUS_ICONS[call.status] ?? '•'));
    const first = call.locations[0];
    if (first !== undefined) {
      head.append(button(call.title, 'openLocation', first.line === undefined ? { path: first.path } : { path: first.path, line: first.line }, 'link title'));
    } else head.append(el('span', 'title', call.title));
    head.append(el('span', `badge kind-${call.toolKind}`, call.toolKind));
    const body = el('div', 'card-body');
    const layout = cardLayout(call);
    if (layout.listLocations) {
      const locations = el('div', 'locations');
      for (const location of call.locations) {
        const shown = displayPath(location.path, this.cwd);
        const label = location.line === undefined ? shown : `${shown}:${location.line}`;
        locations.append(button(label, 'openLocation', location.line === undefined ? { path: location.path } : { path: location.path, line: location.line }, 'link'));
      }
      body.append(locations);
    }
    renderToolContent(body, item.id, call.content, this.cwd, { folded: layout.foldText });
    if (call.content.length === 0 && call.rawInput !== undefined) {
      const details = el('details', 'raw-input');
      details.append(el('summary', '', 'Input'), el('pre', '', truncated(JSON.stringify(call.rawInput, null, 2))));
      body.append(details);
    }
    node.replaceChildren(head, ...(body.childElementCount ? [body] : []));
  }

  private renderPermission(node: HTMLElement, item: Extract<ChatItem, { type: 'permission' }>): void {
    node.className = `item item-permission card permission-${item.status}`;
    const head = el('div', 'card-head');
    head.append(el('span', 'status-icon', '?'), el('span', 'title', `Allow: ${item.toolCall.title}`), el('span', `badge kind-${item.toolCall.toolKind}`, item.toolCall.toolKind));
    const body = el('div', 'card-body');
    const content = item.toolCall.content ?? [];
    // the tool card above shows the change's lines: here only its files and "Show diff"
    const repeated = content.some((part) => part.type === 'diff');
    renderToolContent(body, item.id, content, this.cwd, { diffHeadsOnly: repeated });
    if (repeated) body.append(el('div', 'see-above', 'The change is shown in the card above.'));
    if (content.length === 0 && item.toolCall.rawInput !== undefined) {
      body.append(el('pre', 'tool-text', truncated(JSON.stringify(item.toolCall.rawInput, null, 2))));
    }
    const actions = el('div', 'card-actions');
    if (item.status === 'pending') {
      for (const option of item.options) {
        if (option.optionId === 'allow_always' && item.prefix !== undefined) {
          // the command prefix to remember, editable before it is (`npm test` → `npm`)
          const label = el('label', 'prefix-field', 'Always allow commands starting with ');
          const input = el('input', 'prefix-input');
          input.type = 'text';
          input.value = item.prefix;
          input.spellcheck = false;
          input.dataset.request = item.requestId;
          input.setAttribute('aria-label', 'command prefix to always allow in this workspace');
          label.append(input);
          actions.append(label, button('Always allow', 'answer', { request: item.requestId, option: option.optionId }, optionStyle(option.kind)));
          continue;
        }
        actions.append(button(option.name, 'answer', { request: item.requestId, option: option.optionId }, optionStyle(option.kind)));
      }
    } else {
      const chosen = item.options.find((option) => option.optionId === item.optionId);
      const name = item.answeredPrefix !== undefined ? `Always allow \`${item.answeredPrefix}\` in this workspace` : chosen?.name ?? item.optionId;
      const text = item.status === 'selected' ? `Answered: ${name}` : item.status === 'withdrawn' ? 'Withdrawn by the agent' : 'Cancelled';
      actions.append(el('span', 'resolution', text));
    }
    node.replaceChildren(head, body, actions);
  }

  private renderTurn(node: HTMLElement, item: Extract<ChatItem, { type: 'turn' }>): void {
    const parts: string[] = [];
    if (item.stopReason && item.stopReason !== 'end_turn') parts.push(item.stopReason.replace(/_/g, ' '));
    if (item.usage) parts.push(usageText(item.usage));
    const children: Node[] = [el('span', 'turn-info', parts.join(' — '))];
    if (item.error) {
      const error = el('div', 'turn-error');
      error.innerHTML = turnErrorHtml(item.error);
      children.unshift(error);
    }
    node.replaceChildren(...children);
  }
}

