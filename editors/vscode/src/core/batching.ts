/**
 * Merging consecutive chat events before they cross to the webview (pure).
 *
 * Streaming sends thousands of small chunk updates; adjacent chunks of the same kind fold into
 * one event whose text is their concatenation, so the reducer result is unchanged while the
 * webview receives one message per frame instead of one per chunk.
 */

import type { ChatEvent } from './viewModel';

export function coalesce(events: readonly ChatEvent[]): ChatEvent[] {
  const out: ChatEvent[] = [];
  for (const event of events) {
    const last = out[out.length - 1];
    if (
      last !== undefined &&
      last.type === 'update' &&
      event.type === 'update' &&
      (event.update.kind === 'agent_message_chunk' || event.update.kind === 'agent_thought_chunk') &&
      last.update.kind === event.update.kind
    ) {
      out[out.length - 1] = { type: 'update', update: { kind: event.update.kind, text: last.update.text + event.update.text } };
      continue;
    }
    out.push(event);
  }
  return out;
}
