/**
 * What the chat says for compaction and project-instruction updates, and the answer to a
 * shell command's "always allow" with the prefix the user confirmed (pure).
 */

import type { Compaction, PermissionOutcome } from './protocol';

function tokens(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

const REASONS: Record<string, string> = {
  threshold: 'the context is filling up',
  request: 'asked for',
  overflow: 'the model refused a too-long request',
};

/** The compaction row's text: queued, running, the tokens before → after, or why it failed. */
export function compactionText(c: Compaction): string {
  switch (c.state) {
    case 'queued':
      return 'Compaction queued: it runs when the current step ends';
    case 'started': {
      const size = c.tokensBefore === undefined ? '' : ` (~${tokens(c.tokensBefore)} tokens)`;
      const why = c.reason === undefined ? '' : ` — ${REASONS[c.reason] ?? c.reason}`;
      return `Compacting the conversation${size}…${why}`;
    }
    case 'completed': {
      if (c.tokensBefore === undefined || c.tokensAfter === undefined) return 'Compacted the conversation';
      return `Compacted the conversation: ~${tokens(c.tokensBefore)} → ~${tokens(c.tokensAfter)} tokens`;
    }
    case 'failed':
      return `Compaction failed: ${c.message ?? 'no summary'} (the history is unchanged)`;
  }
}

/** The note naming the project instruction files the agent now follows. */
export function instructionsText(sources: readonly string[]): string {
  return `Instructions: ${sources.join(', ')}`;
}

/**
 * The outcome of choosing `optionId`; "always allow" on a shell command carries the prefix
 * the user confirmed (`typed`, whitespace collapsed), or the offered one when left empty.
 */
export function selectedOutcome(optionId: string, offered?: string, typed?: string): PermissionOutcome {
  if (optionId !== 'allow_always' || offered === undefined) return { outcome: 'selected', optionId };
  const prefix = (typed ?? '').trim().replace(/\s+/g, ' ');
  return { outcome: 'selected', optionId, prefix: prefix === '' ? offered : prefix };
}
