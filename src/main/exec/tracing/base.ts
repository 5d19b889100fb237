// What every debug tracer shares: attaching to the executor's EVM for one transaction, and stopping — by request
// (geth's Tracer.Stop) or when its deadline passed (the `timeout` of the trace config). The EVM gives no other
// chance to interrupt it than a listener that throws, so the deadline is checked from the listeners.

import type { Address } from '@ethereumjs/util';
import type { BlockContext } from '../evm/context.js';
import type { TransactionLike, TxResult } from '../evm/interface.js';
import { attach, type EvmListeners } from './evmEvents.js';
import { TraceStopped, type TxTracer } from './interface.js';

export abstract class TracerBase implements TxTracer {
  /** performance.now() past which the tracer stops execution; undefined for none. */
  deadline: number | undefined;
  #reason: Error | undefined;
  #ticks = 0;
  #detach: (() => void) | undefined;

  protected abstract listeners(): EvmListeners;
  protected abstract start(block: BlockContext, tx: TransactionLike, sender: Address): void;
  protected abstract end(result: TxResult | undefined, error: unknown): void;
  abstract result(): unknown;

  onTxStart(block: BlockContext, tx: TransactionLike, sender: Address): void {
    this.start(block, tx, sender);
    this.#detach = attach(block.executor.evm, this.listeners());
  }

  onTxEnd(result: TxResult | undefined, error: unknown): void {
    this.#detach?.();
    this.#detach = undefined;
    this.end(result, error);
  }

  stop(reason: Error): void {
    this.#reason ??= reason;
  }

  /** Why tracing stopped, if it did. */
  get stopped(): Error | undefined {
    return this.#reason;
  }

  /** Throws once stopped; `every` > 1 reads the clock only on every n-th call (steps are many). */
  protected check(every = 1): void {
    if (this.#reason === undefined && this.deadline !== undefined && ++this.#ticks % every === 0) {
      if (performance.now() > this.deadline) this.stop(new Error('execution timeout'));
    }
    if (this.#reason !== undefined) throw new TraceStopped(this.#reason.message);
  }

  /** For result(): geth's GetResult returns the stop reason instead of a result. */
  protected throwIfStopped(): void {
    if (this.#reason !== undefined) throw this.#reason;
  }
}
