// BlobVerifier: checks blobs against their versioned hashes (and KZG proofs, where the beacon node gave them).
// `blobVerifierInline.ts` runs c-kzg on the calling thread, `blobVerifierPooled.ts` on the worker pool; one test
// suite runs over both.
import { TernError } from '../../common/errors.js';
import { BlobStatus, BYTES_PER_COMMITMENT, BYTES_PER_PROOF, type PackedBlobs } from '../../protocol/blob/blobCheck.js';
import { BYTES_PER_BLOB } from '../../protocol/blob/blobData.js';

export interface BlobVerifyItem {
  /** 131,072 bytes. */
  blob: Uint8Array;
  /** The 32-byte versioned hash the blob must match. */
  versionedHash: Uint8Array;
  /** From a sidecar: the 48-byte commitment and proof. Without them the commitment is computed from the blob. */
  commitment?: Uint8Array | undefined;
  proof?: Uint8Array | undefined;
}

export type BlobVerdict = 'ok' | 'hash-mismatch' | 'proof-invalid' | 'malformed';

export interface BlobVerifyOptions {
  signal?: AbortSignal | undefined;
}

export interface BlobVerifier {
  /** Threads the verification runs on (1 inline). */
  readonly threads: number;
  /**
   * One verdict per item, in order. Rejects (INVALID_INPUT) when an item has the wrong sizes, ABORTED when the
   * signal fires; a bad blob is a verdict, not a rejection.
   */
  verify(items: readonly BlobVerifyItem[], opts?: BlobVerifyOptions): Promise<BlobVerdict[]>;
}

const VERDICTS: Record<number, BlobVerdict> = {
  [BlobStatus.ok]: 'ok',
  [BlobStatus.hashMismatch]: 'hash-mismatch',
  [BlobStatus.proofInvalid]: 'proof-invalid',
  [BlobStatus.malformed]: 'malformed',
};

export function verdictsOf(status: Uint8Array): BlobVerdict[] {
  return Array.from(status, (s) => VERDICTS[s] ?? 'malformed');
}

/** Packs items into fresh buffers (owned by the caller, so they can be transferred). */
export function packBlobItems(items: readonly BlobVerifyItem[]): PackedBlobs {
  const n = items.length;
  const p: PackedBlobs = {
    count: n,
    blobs: new Uint8Array(n * BYTES_PER_BLOB),
    versionedHashes: new Uint8Array(n * 32),
    hasProof: new Uint8Array(n),
    commitments: new Uint8Array(n * BYTES_PER_COMMITMENT),
    proofs: new Uint8Array(n * BYTES_PER_PROOF),
  };
  items.forEach((it, i) => {
    if (it.blob.length !== BYTES_PER_BLOB) invalid(`blob ${i} is ${it.blob.length} bytes, want ${BYTES_PER_BLOB}`);
    if (it.versionedHash.length !== 32) invalid(`versioned hash ${i} is ${it.versionedHash.length} bytes, want 32`);
    p.blobs.set(it.blob, i * BYTES_PER_BLOB);
    p.versionedHashes.set(it.versionedHash, i * 32);
    if (it.commitment !== undefined || it.proof !== undefined) {
      if (it.commitment?.length !== BYTES_PER_COMMITMENT || it.proof?.length !== BYTES_PER_PROOF) {
        invalid(`blob ${i}: commitment and proof must both be 48 bytes`);
      }
      p.hasProof[i] = 1;
      p.commitments.set(it.commitment, i * BYTES_PER_COMMITMENT);
      p.proofs.set(it.proof, i * BYTES_PER_PROOF);
    }
  });
  return p;
}

function invalid(message: string): never {
  throw new TernError('INVALID_INPUT', message);
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new TernError('ABORTED', 'blob verification aborted');
}
