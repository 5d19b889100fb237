// Sender recovery on the worker pool. One recovery costs ~65 µs with libsecp256k1, so a task carries a chunk of
// transactions (≥ ~0.5 ms of work against a ~35 µs round trip) and a block's chunks run on every thread at once.
// A stream's chunks grow from `firstChunk` to `chunkSize` (doubling): execution waits only for the small first one,
// and the pool keeps ahead of it with the larger ones.
import type * as senderTasks from '../../../workers/senders.js';
import { packInputs } from '../../native/keccak.js';
import type { PoolLogger, TaskMapOf, WorkerPool } from '../../pool/interface.js';
import { PiscinaPool, type PiscinaPoolOptions } from '../../pool/piscina.js';
import { unpackSenders } from './inline.js';
import type { SenderRecovery, SenderResult, SenderStream } from './interface.js';

export type SenderTasks = TaskMapOf<typeof senderTasks>;
export const SENDERS_WORKER = 'senders';

export interface PooledSenderRecoveryOptions extends PiscinaPoolOptions {
  /** Transactions per task (the largest chunk of a stream). */
  chunkSize?: number;
  /** Transactions in a stream's first task; each next one doubles up to chunkSize. */
  firstChunk?: number;
}

export const pooledSenderRecoveryDefaults = { chunkSize: 16, firstChunk: 4 } as const;

/** Tasks admitted and handed to the threads at once: every chunk of a large block (a 1,000-tx one is 20). */
const STREAM_TASKS = 32;

export class PooledSenderRecovery implements SenderRecovery {
  readonly #pool: WorkerPool<SenderTasks>;
  readonly #chunk: number;
  readonly #first: number;

  constructor(
    opts: PooledSenderRecoveryOptions = {},
    deps: { logger?: PoolLogger; pool?: WorkerPool<SenderTasks> } = {},
  ) {
    const { chunkSize, firstChunk, ...poolOpts } = opts;
    this.#chunk = Math.max(1, chunkSize ?? pooledSenderRecoveryDefaults.chunkSize);
    this.#first = Math.min(this.#chunk, Math.max(1, firstChunk ?? pooledSenderRecoveryDefaults.firstChunk));
    // A block's chunks all go to the threads at once, each thread running its share back to back: handed out one
    // at a time, the next chunk would wait for the executor's event loop, which execution on recovered chunks
    // does not turn (the pool idled while execution went on, then execution waited for it).
    this.#pool =
      deps.pool ??
      new PiscinaPool<SenderTasks>(
        SENDERS_WORKER,
        { maxQueue: STREAM_TASKS, tasksPerThread: STREAM_TASKS, ...poolOpts },
        deps,
      );
  }

  /** Whole batches (ahead of execution, nothing waits for a first chunk): equal chunks. */
  async recover(txs: readonly Uint8Array[]): Promise<SenderResult[]> {
    return (await Promise.all(this.#stream(txs, this.#chunk).chunks)).flat();
  }

  recoverStream(txs: readonly Uint8Array[]): SenderStream {
    return this.#stream(txs, this.#first);
  }

  #stream(txs: readonly Uint8Array[], first: number): SenderStream {
    const starts: number[] = [];
    const chunks: Array<Promise<SenderResult[]>> = [];
    for (let i = 0, size = first; i < txs.length; i += size, size = Math.min(this.#chunk, 2 * size)) {
      const chunk = txs.slice(i, i + size);
      const { data, offsets } = packInputs(chunk);
      starts.push(i);
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
    return { starts, chunks };
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
