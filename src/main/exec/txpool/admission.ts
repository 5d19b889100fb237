// The CPU-heavy checks of tx-pool admission: sender recovery (secp256k1, ~65 µs a signature) and the KZG proofs of
// blob sidecars (~2 ms a blob). They run before a transaction joins the pool's serial admission, on the worker
// pools in a node: a batch of signatures at or above `minPooledSenders` goes to the sender pool (a single one is
// answered sooner here than through a round trip), and every sidecar's proofs (milliseconds of work) go to the
// blob pool. Cell-proof sidecars (version 1) are checked inline by sidecar.ts.
import { availableParallelism } from 'node:os';
import type * as blobTasks from '../../../workers/blobs.js';
import type { Logger } from '../../common/logger/index.js';
import type { PoolLogger, TaskMapOf, WorkerPool } from '../../pool/interface.js';
import { PiscinaPool } from '../../pool/piscina.js';
import { BlobStatus, BYTES_PER_COMMITMENT, BYTES_PER_PROOF, type PackedBlobs } from '../../protocol/blob/blobCheck.js';
import { InlineSenderRecovery } from '../senders/inline.js';
import type { SenderRecovery, SenderResult } from '../senders/interface.js';
import { PooledSenderRecovery } from '../senders/pooled.js';
import { BLOB_SIZE, type BlobSidecar, verifySidecarProofs, versionedHash } from './sidecar.js';

export interface AdmissionChecks {
  /** Senders of transactions in consensus encoding, in order. */
  senders(raws: readonly Uint8Array[]): Promise<SenderResult[]>;
  /**
   * Whether a version-0 sidecar's blob proofs verify; the caller checked its shape (counts, sizes, hashes). Throws
   * with the library's message when c-kzg refuses the input.
   */
  blobProofs(s: BlobSidecar): Promise<boolean>;
  close(): Promise<void>;
}

const inlineSenders = new InlineSenderRecovery();

/** Every check on the calling thread (tests, tools, a node without pools). */
export const inlineAdmission: AdmissionChecks = {
  senders: (raws) => inlineSenders.recover(raws),
  blobProofs: async (s) => verifySidecarProofs(s),
  close: async () => {},
};

/**
 * Signatures recovered here rather than on the pool below this count. Measured by `node dist/bench/run.js
 * admission` (bench/RESULTS.md): one signature answers sooner inline (237 µs against 288 µs through the pool on a
 * busy machine), two or more answer sooner on the pool (412 against 581 µs), whose chunks run on every thread, and
 * the pool always takes less of this thread's time (154–413 µs a batch of 1–16 against the whole recovery inline).
 */
export const MIN_POOLED_SENDERS = 2;

type BlobTasks = TaskMapOf<typeof blobTasks>;

export interface PooledAdmissionOptions {
  /** Threads of each pool; default os.availableParallelism(). */
  threads?: number;
  minPooledSenders?: number;
}

export class PooledAdmission implements AdmissionChecks {
  readonly #senders: SenderRecovery;
  /** A sender recovery handed in belongs to its giver (the node's block-import stages), which closes it. */
  readonly #ownsSenders: boolean;
  readonly #blobs: WorkerPool<BlobTasks>;
  readonly #min: number;

  constructor(
    opts: PooledAdmissionOptions = {},
    deps: { logger?: PoolLogger; senders?: SenderRecovery; blobs?: WorkerPool<BlobTasks> } = {},
  ) {
    const poolOpts = opts.threads === undefined ? {} : { threads: opts.threads };
    this.#ownsSenders = deps.senders === undefined;
    this.#senders = deps.senders ?? new PooledSenderRecovery(poolOpts, deps);
    this.#blobs = deps.blobs ?? new PiscinaPool<BlobTasks>('blobs', poolOpts, deps);
    this.#min = opts.minPooledSenders ?? MIN_POOLED_SENDERS;
  }

  senders(raws: readonly Uint8Array[]): Promise<SenderResult[]> {
    return raws.length < this.#min ? inlineSenders.recover(raws) : this.#senders.recover(raws);
  }

  async blobProofs(s: BlobSidecar): Promise<boolean> {
    const packed = packSidecar(s);
    const { status } = await this.#blobs.run('verifyBlobs', packed, {
      transfer: [packed.blobs.buffer as ArrayBuffer, packed.proofs.buffer as ArrayBuffer],
    });
    if (status.some((v) => v === BlobStatus.malformed)) throw new Error('c-kzg refused a blob, commitment or proof');
    return status.every((v) => v === BlobStatus.ok);
  }

  async close(): Promise<void> {
    if (this.#ownsSenders) await this.#senders.close();
    await this.#blobs.close();
  }
}

/** A version-0 sidecar as the blob task's packed input; every blob comes with its commitment and proof. */
function packSidecar(s: BlobSidecar): PackedBlobs {
  const count = s.blobs.length;
  const p: PackedBlobs = {
    count,
    blobs: new Uint8Array(count * BLOB_SIZE),
    versionedHashes: new Uint8Array(count * 32),
    hasProof: new Uint8Array(count).fill(1),
    commitments: new Uint8Array(count * BYTES_PER_COMMITMENT),
    proofs: new Uint8Array(count * BYTES_PER_PROOF),
  };
  for (let i = 0; i < count; i++) {
    p.blobs.set(s.blobs[i] as Uint8Array, i * BLOB_SIZE);
    p.commitments.set(s.commitments[i] as Uint8Array, i * BYTES_PER_COMMITMENT);
    // The commitments' own hashes: the caller compared them with the transaction's already.
    p.versionedHashes.set(versionedHash(s.commitments[i] as Uint8Array), i * 32);
    p.proofs.set(s.proofs[i] as Uint8Array, i * BYTES_PER_PROOF);
  }
  return p;
}

/**
 * The node's admission checks: on `threads` threads per pool (default every core), inline for 0 or when the pools
 * cannot start. `senders`: the node's sender-recovery pool, shared rather than a second pool of idle threads (used
 * when `threads` is not given; the caller keeps it and closes it).
 */
export function createAdmission(
  threads: number | undefined,
  logger: Logger,
  senders?: SenderRecovery,
): AdmissionChecks {
  const n = threads ?? availableParallelism();
  if (n <= 0) return inlineAdmission;
  const poolLogger = { warn: (obj: Record<string, unknown>, msg: string) => logger.warn(msg, { ...obj }) };
  try {
    return new PooledAdmission(
      { threads: n },
      threads === undefined && senders !== undefined ? { logger: poolLogger, senders } : { logger: poolLogger },
    );
  } catch (err) {
    logger.warn('Tx admission pools unavailable: signatures and blob proofs are checked on the main thread', {
      err: err instanceof Error ? err.message : String(err),
    });
    return inlineAdmission;
  }
}
