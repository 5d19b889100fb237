// Admission for layer-1 RPC requests: at most `maxConcurrency` in flight, and (when `rateLimit` > 0) a token
// bucket of `rateLimit` requests per second. A batch of N calls costs N tokens but may take them at once: the
// bucket holds at least one full batch (--l1.rpc-max-batch-size).
import { TernError } from '../../common/errors.js';

export interface LimiterOptions {
  maxConcurrency: number;
  /** Requests per second; 0 disables the rate limit. */
  rateLimit: number;
  /** Tokens the bucket holds when full (the largest burst). */
  burst: number;
  now?: () => number;
}

export class RequestLimiter {
  readonly #max: number;
  readonly #rate: number;
  readonly #burst: number;
  readonly #now: () => number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  #tokens: number;
  #last: number;
  /** Serialises token waits so requests are served in order. */
  #tokenQueue: Promise<void> = Promise.resolve();

  constructor(opts: LimiterOptions) {
    if (!Number.isInteger(opts.maxConcurrency) || opts.maxConcurrency < 1) {
      throw new RangeError(`maxConcurrency must be ≥ 1: ${opts.maxConcurrency}`);
    }
    this.#max = opts.maxConcurrency;
    this.#rate = Math.max(opts.rateLimit, 0);
    this.#burst = Math.max(1, opts.burst, this.#rate);
    this.#now = opts.now ?? (() => performance.now());
    this.#tokens = this.#burst;
    this.#last = this.#now();
  }

  get active(): number {
    return this.#active;
  }

  /** Runs `fn` once a concurrency slot and `cost` tokens are free. */
  async run<T>(cost: number, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#rate > 0) await this.#take(Math.min(cost, this.#burst), signal);
    await this.#acquire(signal);
    try {
      return await fn();
    } finally {
      this.#active--;
      this.#waiting.shift()?.();
    }
  }

  #acquire(signal: AbortSignal | undefined): Promise<void> {
    if (this.#active < this.#max) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.#waiting.indexOf(wake);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(new TernError('ABORTED', 'L1 request aborted'));
      };
      const wake = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.#active++;
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(wake);
    });
  }

  #take(cost: number, signal: AbortSignal | undefined): Promise<void> {
    const turn = this.#tokenQueue.then(async () => {
      for (;;) {
        const now = this.#now();
        this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#rate);
        this.#last = now;
        if (this.#tokens >= cost) {
          this.#tokens -= cost;
          return;
        }
        if (signal?.aborted) throw new TernError('ABORTED', 'L1 request aborted');
        await new Promise((r) => setTimeout(r, Math.ceil(((cost - this.#tokens) / this.#rate) * 1000)));
      }
    });
    this.#tokenQueue = turn.catch(() => undefined);
    return turn;
  }
}
