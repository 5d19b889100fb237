// A token bucket with golang.org/x/time/rate's WaitN semantics, as op-geth limits the cost of conditional
// transactions: `ratePerSecond` tokens a second, `burst` at most; a caller asking for n tokens reserves them at
// once (the balance may go negative) and waits until the reservation is due.
export interface RateLimiterOptions {
  ratePerSecond: number;
  burst: number;
  /** Clock in ms (tests). */
  now?: () => number;
}

export class RateLimiter {
  readonly #rate: number;
  #burst: number;
  #tokens: number;
  #last: number;
  readonly #now: () => number;

  constructor(opts: RateLimiterOptions) {
    this.#rate = opts.ratePerSecond;
    this.#burst = opts.burst;
    this.#tokens = opts.burst;
    this.#now = opts.now ?? (() => performance.now());
    this.#last = this.#now();
  }

  /**
   * Reserves n tokens: the delay in ms before they are available, or undefined when they never will be (n above
   * the burst, or nothing left with a zero rate).
   */
  reserve(n: number): number | undefined {
    if (n > this.#burst) return undefined;
    const now = this.#now();
    if (this.#rate === 0) {
      // x/time/rate: with no refill, the burst itself is what can still be spent.
      if (this.#burst < n) return undefined;
      this.#burst -= n;
      return 0;
    }
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#rate);
    this.#last = now;
    this.#tokens -= n;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.#rate) * 1000;
  }

  /** Waits for n tokens; false when they cannot be had or `signal` aborts first (the reservation is then returned). */
  async wait(n: number, signal?: AbortSignal): Promise<boolean> {
    const delay = this.reserve(n);
    if (delay === undefined) return false;
    if (delay === 0) return true;
    return new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (!ok) this.#tokens += n;
        resolve(ok);
      };
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(true), delay);
      if (signal?.aborted) done(false);
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
