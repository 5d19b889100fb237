// Layer-1 head tracking for the driver: the latest block from a newHeads subscription over WebSocket or by polling
// every --l1.http-poll-interval over HTTP; safe and finalized by polling every --l1.epoch-poll-interval (off when
// ≤ 0). A handler is called only when the reference changes. Failures are logged and retried at the next tick.
import type { Logger } from '../../common/logger/index.js';
import type { ClientSubscription } from '../../common/rpc/client.js';
import type { L1Client } from './client.js';
import type { BlockLabel, L1BlockRef } from './interface.js';
import { checkHeader } from './verify.js';

export interface L1HeadsOptions {
  /** --l1.http-poll-interval, ms. */
  httpPollIntervalMs: number;
  /** --l1.epoch-poll-interval, ms; ≤ 0 disables safe/finalized polling. */
  epochPollIntervalMs: number;
  /** Verify subscription headers (--l1.trustrpc=false). */
  verify: boolean;
}

export type HeadHandler = (label: BlockLabel, ref: L1BlockRef) => void;

export interface L1HeadsDeps {
  logger: Logger;
  signal?: AbortSignal | undefined;
}

export class L1Heads {
  readonly #client: L1Client;
  readonly #opts: L1HeadsOptions;
  readonly #logger: Logger;
  readonly #onHead: HeadHandler;
  readonly #last = new Map<BlockLabel, L1BlockRef>();
  readonly #timers: NodeJS.Timeout[] = [];
  #sub: ClientSubscription | undefined;
  #stopped = false;

  constructor(client: L1Client, onHead: HeadHandler, opts: L1HeadsOptions, deps: L1HeadsDeps) {
    this.#client = client;
    this.#opts = opts;
    this.#onHead = onHead;
    this.#logger = deps.logger.child('l1-heads');
    deps.signal?.addEventListener('abort', () => void this.stop(), { once: true });
  }

  /** The last reference seen for a label. */
  last(label: BlockLabel): L1BlockRef | undefined {
    return this.#last.get(label);
  }

  async start(): Promise<void> {
    await this.#poll('latest');
    if (this.#client.transport === 'ws') await this.#subscribe();
    else this.#every(this.#opts.httpPollIntervalMs, () => this.#poll('latest'));
    if (this.#opts.epochPollIntervalMs > 0) {
      await Promise.all([this.#poll('safe'), this.#poll('finalized')]);
      this.#every(this.#opts.epochPollIntervalMs, async () => {
        await this.#poll('safe');
        await this.#poll('finalized');
      });
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const t of this.#timers.splice(0)) clearInterval(t);
    const sub = this.#sub;
    this.#sub = undefined;
    await sub?.unsubscribe().catch(() => false);
  }

  #every(ms: number, fn: () => Promise<void>): void {
    if (ms <= 0) return;
    let running = false;
    const t = setInterval(() => {
      if (running || this.#stopped) return;
      running = true;
      void fn().finally(() => {
        running = false;
      });
    }, ms);
    t.unref();
    this.#timers.push(t);
  }

  async #poll(label: BlockLabel): Promise<void> {
    try {
      this.#update(label, await this.#client.blockRefByLabel(label));
    } catch (err) {
      // Before the merge's first finalization (or on dev chains) safe/finalized may not exist: not an error.
      this.#logger.debug('L1 head poll failed', { label, err: err instanceof Error ? err.message : String(err) });
    }
  }

  async #subscribe(): Promise<void> {
    try {
      this.#sub = await this.#client.rpc.subscribe(
        'eth',
        ['newHeads'],
        (head) => {
          try {
            const { hash, header } = checkHeader(head, this.#opts.verify);
            this.#update('latest', {
              hash,
              number: Number(header.number),
              parentHash: `0x${Buffer.from(header.parentHash).toString('hex')}`,
              timestamp: Number(header.timestamp),
            });
          } catch (err) {
            this.#logger.warn('Ignoring a bad newHeads notification', { err: (err as Error).message });
          }
        },
        {
          onError: (err) => {
            if (this.#stopped) return;
            this.#logger.warn('L1 head subscription ended; polling and resubscribing', { err: err.message });
            this.#sub = undefined;
            setTimeout(() => void this.#resubscribe(), 1000).unref();
          },
        },
      );
    } catch (err) {
      this.#logger.warn('L1 newHeads subscription failed; polling instead', { err: (err as Error).message });
      this.#every(this.#opts.httpPollIntervalMs, () => this.#poll('latest'));
    }
  }

  async #resubscribe(): Promise<void> {
    if (this.#stopped) return;
    await this.#poll('latest');
    await this.#subscribe();
  }

  #update(label: BlockLabel, ref: L1BlockRef): void {
    const prev = this.#last.get(label);
    if (prev?.hash === ref.hash) return;
    this.#last.set(label, ref);
    this.#onHead(label, ref);
  }
}
