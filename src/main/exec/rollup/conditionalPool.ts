// Conditional transactions in the pool and at block building: the conditionals accepted by
// eth_sendRawTransactionConditional, kept by transaction hash, and a view of the pool for the block builder that
// checks each one before inclusion (op-geth's miner commitTransaction: a failed conditional drops the sender's
// remaining transactions from this block and marks the transaction rejected).
import type { Logger } from '../../common/logger/index.js';
import { toHex as hex } from '../../primitives/bytes.js';
import type { BlockTxFilter, PendingIterator, PendingTx, TxPool } from '../txpool/interface.js';
import type { TransactionConditional } from './conditional.js';

export class ConditionalRegistry {
  readonly #byHash = new Map<string, TransactionConditional>();
  readonly #rejected = new Set<string>();

  set(hash: Uint8Array, c: TransactionConditional): void {
    this.#byHash.set(hex(hash), c);
    this.#rejected.delete(hex(hash));
  }

  get(hash: Uint8Array): TransactionConditional | undefined {
    return this.#byHash.get(hex(hash));
  }

  /** A transaction whose conditional failed at building: never included (op-geth evicts it from the pool). */
  reject(hash: Uint8Array): void {
    this.#rejected.add(hex(hash));
    this.#byHash.delete(hex(hash));
  }

  isRejected(hash: Uint8Array): boolean {
    return this.#rejected.has(hex(hash));
  }

  /** Forgets transactions no longer in the pool. */
  prune(inPool: (hash: Uint8Array) => boolean): void {
    for (const key of [...this.#byHash.keys(), ...this.#rejected]) {
      const h = Buffer.from(key.slice(2), 'hex');
      if (!inPool(h)) {
        this.#byHash.delete(key);
        this.#rejected.delete(key);
      }
    }
  }

  get size(): number {
    return this.#byHash.size;
  }
}

/** Checks conditionals against the block being built; opened per building pass, released after it. */
export interface ConditionalChecker {
  check(c: TransactionConditional): string | undefined;
  release(): void;
}

/** The pool as the block builder should see it: conditional transactions are checked before they are offered. */
export function conditionalPool(
  pool: TxPool,
  registry: ConditionalRegistry,
  open: () => ConditionalChecker,
  logger?: Logger,
): TxPool {
  return {
    add: (raw, opts) => pool.add(raw, opts),
    onNewHead: () => pool.onNewHead(),
    subscribe: (listener) => pool.subscribe(listener),
    close: () => pool.close(),
    pendingForBlock(filter: BlockTxFilter): PendingIterator {
      const inner = pool.pendingForBlock(filter);
      function* iterate(): Generator<PendingTx> {
        let checker: ConditionalChecker | undefined;
        try {
          for (const p of inner) {
            if (registry.isRejected(p.tx.hash)) {
              inner.skipSender(p.sender);
              continue;
            }
            const c = registry.get(p.tx.hash);
            if (c !== undefined) {
              checker ??= open();
              const failed = checker.check(c);
              if (failed !== undefined) {
                logger?.warn('Skipping account, transaction with failed conditional', {
                  hash: hex(p.tx.hash),
                  err: failed,
                });
                registry.reject(p.tx.hash);
                inner.skipSender(p.sender);
                continue;
              }
            }
            yield p;
          }
        } finally {
          checker?.release();
        }
      }
      const it = iterate();
      return {
        [Symbol.iterator]: () => it,
        skipSender: (sender) => inner.skipSender(sender),
      };
    },
  };
}
