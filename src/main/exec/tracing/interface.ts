// What a tracer is in tern-exec: transaction hooks (../evm/context.ts TxHooks, called by the state transition when
// an executor has a tracer) plus, for the debug_trace* tracers, the JSON result geth's GetResult would give.
import type { TxHooks } from '../evm/context.js';

export type { TxHooks };

/** A per-transaction tracer of the debug namespace (geth's tracers.Tracer). */
export interface TxTracer extends TxHooks {
  /** The JSON result once the transaction ended; throws the reason when tracing was stopped (timeout). */
  result(): unknown;
  /** Stops tracing at the next opcode or call frame with `reason` (geth's Tracer.Stop). */
  stop(reason: Error): void;
}

/** The transaction's tracer stops execution with this error (not a TernError: block replay must not rewrap it). */
export class TraceStopped extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceStopped';
  }
}
