// The call workers' pool: eth_call, eth_estimateGas and eth_createAccessList leave the coordinator (./call.ts). When
// the pool cannot start (the worker module is not built) the node says so and runs calls on its own thread.
import { availableParallelism } from 'node:os';
import type { Logger } from '../../common/logger/index.js';
import { PiscinaPool } from '../../pool/piscina.js';
import type { CallPool, CallTasks } from './call.js';

/** Calls queued per thread before a further call waits for a slot (they wait, they are never refused). */
const QUEUE_PER_THREAD = 16;

/** A pool of `threads` call workers (default: one per core), or undefined when threads is 0 or it cannot start. */
export function createCallPool(threads: number | undefined, logger: Logger): CallPool | undefined {
  const n = threads ?? availableParallelism();
  if (n <= 0) return undefined;
  try {
    return new PiscinaPool<CallTasks>(
      'calls',
      // Every thread starts with the node and stays: a thread started on demand makes its first call wait for it
      // to load (~0.7 s measured, the max eth_call latency of bench/engine's probe).
      { threads: n, minThreads: n, maxQueue: n * QUEUE_PER_THREAD },
      { logger: { warn: (obj, msg) => logger.warn(msg, { ...obj }) } },
    );
  } catch (err) {
    logger.warn('Call workers unavailable: eth_call and eth_estimateGas run on the main thread', {
      err: err instanceof Error ? err.message : String(err),
    });
    return undefined;
  }
}
