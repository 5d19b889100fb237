// Sender recovery on the worker pool. One recovery costs ~65 µs with libsecp256k1, so a task carries a chunk of
// transactions (≥ ~0.5 ms of work against a ~35 µs round trip) and a block's chunks run on every thread at once.
import type * as senderTasks from '../../../workers/senders.js';
import { packInputs } from '../../native/keccak.js';
import type { PoolLogger, TaskMapOf, WorkerPool } from '../../pool/interface.js';
import { PiscinaPool, type PiscinaPoolOptions } from '../../pool/piscina.js';
import { unpackSenders } from './inline.js';
import type { SenderRecovery, SenderResult, SenderStream } from './interface.js';

export type SenderTasks = TaskMapOf<typeof senderTasks>;
export const SENDERS_WORKER = 'senders';

export interface PooledSenderRecoveryOptions extends PiscinaPoolOptions {
  /** Transactions per task. */
  chunkSize?: number;
}

export const pooledSenderRecoveryDefaults = { chunkSize: 16 } as const;

export class PooledSenderRecovery implements SenderRecovery {
  readonly #pool: WorkerPool<SenderTasks>;
  readonly #chunk: number;

  constructor(
    opts: PooledSenderRecoveryOptions = {},
    deps: { logger?: PoolLogger; pool?: WorkerPool<SenderTasks> } = {},
  ) {
    const { chunkSize, ...poolOpts } = opts;
    this.#chunk = Math.max(1, chunkSize ?? pooledSenderRecoveryDefaults.chunkSize);
    this.#pool = deps.pool ?? new PiscinaPool<SenderTasks>(SENDERS_WORKER, poolOpts, deps);
  }

  async recover(txs: readonly Uint8Array[]): Promise<SenderResult[]> {
    return (await Promise.all(this.recoverStream(txs).chunks)).flat();
  }

  recoverStream(txs: readonly Uint8Array[]): SenderStream {
    const chunks: Array<Promise<SenderResult[]>> = [];
    for (let i = 0; i < txs.length; i += this.#chunk) {
      const chunk = txs.slice(i, i + this.#chunk);
      const { data, offsets } = packInputs(chunk);
      chunks.push(
        this.#pool
          .run(
            'recoverSenders',
            { data, offsets },
            { transfer: [data.buffer as ArrayBuffer, offsets.buffer as ArrayBuffer] },
          )
          .then((out) => unpackSenders(chunk.length, out)),
      );
    }
    return { chunkSize: this.#chunk, chunks };
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
