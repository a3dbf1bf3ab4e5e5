/**
 * When to restart a crashed server (pure, clock passed in).
 *
 * Delays double from `initialMs` up to `maxMs`. A server that ran at least `stableMs` before
 * crashing starts the count afresh; after `maxAttempts` quick crashes in a row the policy gives
 * up and the user restarts by hand (`dsh.restartServer`), which also resets it.
 */

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  maxAttempts: number;
  stableMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000, maxAttempts: 5, stableMs: 60_000 };

export type RestartDecision = { action: 'restart'; delayMs: number; attempt: number } | { action: 'giveUp'; attempts: number };

export class RestartPolicy {
  private attempts = 0;
  private startedAt: number | undefined;

  constructor(private readonly options: BackoffOptions = DEFAULT_BACKOFF) {}

  /** Record that the server (re)started at `now` (milliseconds). */
  started(now: number): void {
    this.startedAt = now;
  }

  /** Decide what to do about a crash at `now`. */
  crashed(now: number): RestartDecision {
    if (this.startedAt !== undefined && now - this.startedAt >= this.options.stableMs) this.attempts = 0;
    this.startedAt = undefined;
    if (this.attempts >= this.options.maxAttempts) return { action: 'giveUp', attempts: this.attempts };
    const delayMs = Math.min(this.options.maxMs, this.options.initialMs * 2 ** this.attempts);
    this.attempts += 1;
    return { action: 'restart', delayMs, attempt: this.attempts };
  }

  reset(): void {
    this.attempts = 0;
    this.startedAt = undefined;
  }
}
