// A token bucket: `rate` tokens per second up to `burst`. take() says how long to wait (0: go now) and books the
// token, so concurrent callers queue behind each other.
export class TokenBucket {
  readonly #rate: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #last: number;

  constructor(rate: number, burst: number, now: () => number = Date.now) {
    this.#rate = rate;
    this.#burst = burst;
    this.#now = now;
    this.#tokens = burst;
    this.#last = now();
  }

  /** Books one token; returns the milliseconds until it is available. */
  take(): number {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#rate);
    this.#last = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens / this.#rate) * 1000);
  }
}
