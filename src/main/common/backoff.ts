// Retrying something that keeps failing, and telling the operator about it without flooding the log: exponential
// back-off with jitter (bounded), and a failure streak that says the first failure, then a summary at most every
// `summaryEveryMs`, then the recovery with how many failures and how long it lasted.

export interface BackoffOptions {
  /** Delay after the first failure, ms. */
  baseMs: number;
  /** Upper bound, ms. */
  maxMs: number;
  /** Fraction of the delay drawn at random (0: none, 1: anywhere in [0, delay]); default 0.5. */
  jitter?: number;
  /** [0, 1) random source (tests). */
  random?: () => number;
}

/** The delay before attempt `failures + 1`: base · 2^(failures − 1), capped, with its jittered share. */
export function backoffDelay(failures: number, opts: BackoffOptions): number {
  const n = Math.max(1, failures);
  const full = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(n - 1, 40));
  const jitter = Math.min(1, Math.max(0, opts.jitter ?? 0.5));
  const random = opts.random ?? Math.random;
  return Math.round(full * (1 - jitter) + full * jitter * random());
}

/** What the streak says about one failure. */
export type StreakReport =
  | { kind: 'first' }
  | { kind: 'summary'; failures: number; sinceMs: number; suppressed: number }
  | { kind: 'quiet' };

export class FailureStreak {
  #failures = 0;
  #startedAt = 0;
  #lastReportAt = 0;
  #reportedFailures = 0;
  readonly #now: () => number;

  constructor(
    private readonly summaryEveryMs: number,
    now: () => number = Date.now,
  ) {
    this.#now = now;
  }

  /** Consecutive failures so far. */
  get failures(): number {
    return this.#failures;
  }

  /** Records a failure: the first one of a streak is reported, then a summary at most every summaryEveryMs. */
  fail(): StreakReport {
    const now = this.#now();
    this.#failures++;
    if (this.#failures === 1) {
      this.#startedAt = now;
      this.#lastReportAt = now;
      this.#reportedFailures = 1;
      return { kind: 'first' };
    }
    if (now - this.#lastReportAt < this.summaryEveryMs) return { kind: 'quiet' };
    const suppressed = this.#failures - this.#reportedFailures;
    this.#lastReportAt = now;
    this.#reportedFailures = this.#failures;
    return { kind: 'summary', failures: this.#failures, sinceMs: now - this.#startedAt, suppressed };
  }

  /** Records a success; returns the streak it ended (undefined when there was none). */
  succeed(): { failures: number; lastedMs: number } | undefined {
    if (this.#failures === 0) return undefined;
    const out = { failures: this.#failures, lastedMs: this.#now() - this.#startedAt };
    this.#failures = 0;
    return out;
  }
}
