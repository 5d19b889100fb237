// Gossip validation on the worker pool where it pays: large blocks run their stateless checks (snappy, signature
// recovery, SSZ, block hash with the transactions trie) on a pool thread running node/workers/gossipBlocks.ts;
// small ones stay inline. Measured (bench/gossip.ts, 2 shared cores, see bench/RESULTS.md): a 2 MB block costs
// the coordinator 18-44 ms inline and the pool validated 1.2-1.35x as many per second; at 100 KB (1.5-3.4 ms
// inline) the pool was even in one run of three, so the threshold sits between the two.
import { availableParallelism } from 'node:os';
import type { PoolLogger, TaskMapOf, WorkerPool } from '../../pool/interface.js';
import { PiscinaPool } from '../../pool/piscina.js';
import type * as gossipTasks from '../workers/gossipBlocks.js';
import type { OffloadedCheck } from './blockValidator.js';

export type GossipTasks = TaskMapOf<typeof gossipTasks>;

/** The task module's name (under node/workers/, see pool/workerPath.ts). */
export const GOSSIP_WORKER = 'gossipBlocks';

/** Compressed message size from which validation goes to the pool. */
export const GOSSIP_OFFLOAD_MIN_BYTES = 256 * 1024;

/** A piscina pool of up to 2 threads for gossip validation. */
export function createGossipValidationPool(deps: { logger?: PoolLogger } = {}): WorkerPool<GossipTasks> {
  return new PiscinaPool<GossipTasks>(GOSSIP_WORKER, { threads: Math.min(2, availableParallelism()) }, deps);
}

/**
 * BlockValidator's offload over `pool`. The message is copied into its own ArrayBuffer, which is transferred:
 * gossipsub keeps the original to forward it, and the original may be a view into a buffer shared with other
 * messages (a Node Buffer's `slice` would not copy, and transferring its buffer would detach them all).
 */
export function pooledBlockCheck(pool: WorkerPool<GossipTasks>): OffloadedCheck {
  return (ctx, topicVersion, data) => {
    const copy = new Uint8Array(data);
    return pool.run('checkBlock', { ctx, topicVersion, data: copy }, { transfer: [copy.buffer] });
  };
}
