// What every debug tracer shares: attaching to the executor's EVM for one transaction, and stopping — by request
// (geth's Tracer.Stop) or when its deadline passed (the `timeout` of the trace config). The EVM gives no other
// chance to interrupt it than a listener that throws, so the deadline is checked from the listeners.

import type { Address } from '@ethereumjs/util';
import type { BlockContext } from '../evm/context.js';
import type { TransactionLike, TxResult } from '../evm/interface.js';
import { attach, type EvmListeners } from './evmEvents.js';
import { TraceStopped, type TxTracer } from './interface.js';

/**
 * The size bound of one debug_trace* answer (--rpc.batch-response-max-size, shared by the tracers of one request):
 * tracers charge what they record, about its JSON size, and stop once it is spent, so neither the reply nor the
 * memory held while tracing grows past it.
 */
export class ResultBudget {
  #used = 0;
  constructor(readonly limitBytes: number) {}

  /** Adds `bytes`; false once the total is past the limit. */
  charge(bytes: number): boolean {
    this.#used += bytes;
    return this.#used <= this.limitBytes;
  }

  get used(): number {
    return this.#used;
  }
}

export function resultTooLarge(limitBytes: number): Error {
  return new Error(
    `trace result exceeds the response size limit of ${limitBytes} bytes (--rpc.batch-response-max-size): trace less (a struct logger "limit", disableStack, no enableMemory, or callTracer) or raise the limit`,
  );
}

export abstract class TracerBase implements TxTracer {
  /** performance.now() past which the tracer stops execution; undefined for none. */
  deadline: number | undefined;
  /** The request's result size bound; undefined for none. */
  budget: ResultBudget | undefined;
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

  /** Counts `bytes` of result against the budget; stops tracing (throws) once it is spent. */
  protected charge(bytes: number): void {
    const budget = this.budget;
    if (budget === undefined || budget.charge(bytes)) return;
    this.stop(resultTooLarge(budget.limitBytes));
    this.check();
  }

  /** For result(): geth's GetResult returns the stop reason instead of a result. */
  protected throwIfStopped(): void {
    if (this.#reason !== undefined) throw this.#reason;
  }
}
