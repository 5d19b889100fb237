// The pooled BlobVerifier. One blob is ~2 ms of KZG work, far above a worker round trip (~34 µs), so a request that
// finds threads idle is split across them (each batch-verifies its share: lower latency); a request that finds the
// pool busy goes as one task, because a batch proof check costs less per blob the more blobs it covers (6 blobs
// ~1.75 ms each, 3 blobs ~2.2 ms each, measured in bench/blobs.ts). Blobs are packed into fresh buffers and
// transferred, not cloned.
import type * as blobTasks from '../../../workers/blobs.js';
import type { PoolLogger, RunOptions, TaskMapOf, WorkerPool } from '../../pool/interface.js';
import { PiscinaPool, type PiscinaPoolOptions } from '../../pool/piscina.js';
import {
  type BlobVerdict,
  type BlobVerifier,
  type BlobVerifyItem,
  type BlobVerifyOptions,
  packBlobItems,
  throwIfAborted,
  verdictsOf,
} from './blobVerifier.js';

export type BlobTasks = TaskMapOf<typeof blobTasks>;

/** The task module's name under src/workers/. */
export const BLOB_WORKER = 'blobs';

/** A piscina pool running the blob task module. */
export function createBlobPool(
  opts: PiscinaPoolOptions = {},
  deps: { logger?: PoolLogger } = {},
): WorkerPool<BlobTasks> {
  return new PiscinaPool<BlobTasks>(BLOB_WORKER, opts, deps);
}

export class PooledBlobVerifier implements BlobVerifier {
  readonly #pool: WorkerPool<BlobTasks>;
  /** This verifier's tasks handed to the pool and not yet settled. */
  #inFlight = 0;

  /** The pool is the caller's: it may be shared, and the caller closes it. */
  constructor(pool: WorkerPool<BlobTasks>) {
    this.#pool = pool;
  }

  get threads(): number {
    return this.#pool.threads;
  }

  async verify(items: readonly BlobVerifyItem[], opts: BlobVerifyOptions = {}): Promise<BlobVerdict[]> {
    throwIfAborted(opts.signal);
    if (items.length === 0) return [];
    const idle = this.#pool.threads - this.#inFlight;
    const pieces = Math.max(1, Math.min(idle, items.length));
    const size = Math.ceil(items.length / pieces);
    const parts: Promise<Uint8Array>[] = [];
    for (let a = 0; a < items.length; a += size) {
      const packed = packBlobItems(items.slice(a, a + size));
      const run: RunOptions = {
        transfer: [
          packed.blobs.buffer as ArrayBuffer,
          packed.versionedHashes.buffer as ArrayBuffer,
          packed.hasProof.buffer as ArrayBuffer,
          packed.commitments.buffer as ArrayBuffer,
          packed.proofs.buffer as ArrayBuffer,
        ],
      };
      if (opts.signal !== undefined) run.signal = opts.signal;
      this.#inFlight++;
      const task = this.#pool.run('verifyBlobs', packed, run).finally(() => {
        this.#inFlight--;
      });
      parts.push(task.then((r) => r.status));
    }
    return (await Promise.all(parts)).flatMap(verdictsOf);
  }
}
