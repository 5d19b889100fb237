// The operator's view of a flaky endpoint (the L1 RPC, the beacon API): every failed attempt is counted, and a WARN
// says so at once for the first failure, then at most every `intervalMs` with the counts since the last WARN, so a
// node falling behind a bad endpoint is never silent and never floods the log.
import type { Logger } from '../../common/logger/index.js';

export class FaultReport {
  #failures = 0;
  #retried = 0;
  #gaveUp = 0;
  #lastErr = '';
  #lastWhat = '';
  #lastReport = 0;
  #reported = 0;

  constructor(
    private readonly logger: Logger,
    /** The WARN's message, e.g. "L1 RPC requests failing, retrying". */
    private readonly message: string,
    /** The field naming what failed last (e.g. lastMethod, lastPath). */
    private readonly whatField: string,
    private readonly intervalMs = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Counts one failed attempt of `what`: `retried` when another attempt follows, otherwise it gave up. */
  fault(what: string, err: unknown, retried: boolean): void {
    this.#failures++;
    if (retried) this.#retried++;
    else this.#gaveUp++;
    this.#lastErr = err instanceof Error ? err.message : String(err);
    this.#lastWhat = what;
    const now = this.now();
    if (this.#reported > 0 && now - this.#lastReport < this.intervalMs) return;
    this.logger.warn(this.message, {
      failures: this.#failures,
      retried: this.#retried,
      gaveUp: this.#gaveUp,
      sinceMs: this.#reported === 0 ? 0 : Math.round(now - this.#lastReport),
      [this.whatField]: this.#lastWhat,
      lastErr: this.#lastErr,
    });
    this.#reported++;
    this.#lastReport = now;
    this.#failures = 0;
    this.#retried = 0;
    this.#gaveUp = 0;
  }
}
