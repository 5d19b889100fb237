// The KZG work behind BlobVerifier, shared by the inline verifier and the worker task (src/workers/blobs.ts):
// a blob with its sidecar's commitment and proof is checked by hashing the commitment to the versioned hash and
// verifying the proof (batched: ~1.75 ms a blob instead of ~2.5); a blob without them (the /blobs endpoint) by
// computing its commitment, which is what hashes to the versioned hash.
import { createHash } from 'node:crypto';
import { equalBytes } from '../../primitives/bytes.js';
import { TernError } from '../../primitives/errors.js';
import { VERSIONED_HASH_VERSION_KZG } from '../../primitives/tx/4844/blob.js';
import { load as loadCKzg } from '../crypto/kzg.js';
import { BYTES_PER_BLOB } from './blobData.js';

export const BYTES_PER_COMMITMENT = 48;
export const BYTES_PER_PROOF = 48;

/** Per-blob outcome codes (a byte each, so a batch's outcome crosses a thread boundary as one small buffer). */
export const BlobStatus = {
  ok: 0,
  /** The commitment does not hash to the versioned hash. */
  hashMismatch: 1,
  /** The KZG proof does not verify the blob against the commitment. */
  proofInvalid: 2,
  /** c-kzg refused the input (a field element not below the modulus, a bad point). */
  malformed: 3,
} as const;

/** Blobs packed back to back: item i is blobs[i·131072…], versionedHashes[i·32…], commitments/proofs[i·48…]. */
export interface PackedBlobs {
  count: number;
  blobs: Uint8Array;
  versionedHashes: Uint8Array;
  /** 1 where the item comes with a commitment and proof, 0 where the commitment is to be computed. */
  hasProof: Uint8Array;
  commitments: Uint8Array;
  proofs: Uint8Array;
}

/** The versioned hash of a KZG commitment: 0x01 ‖ sha256(commitment)[1:]. */
export function kzgToVersionedHash(commitment: Uint8Array): Uint8Array {
  const h = new Uint8Array(createHash('sha256').update(commitment).digest());
  h[0] = VERSIONED_HASH_VERSION_KZG;
  return h;
}

/** Checks every packed blob; returns one BlobStatus byte per blob. Throws only if c-kzg cannot be loaded. */
export function checkPackedBlobs(p: PackedBlobs): Uint8Array {
  checkShape(p);
  const kzg = loadCKzg();
  const status = new Uint8Array(p.count);
  const blob = (i: number) => p.blobs.subarray(i * BYTES_PER_BLOB, (i + 1) * BYTES_PER_BLOB);
  const hash = (i: number) => p.versionedHashes.subarray(i * 32, (i + 1) * 32);
  const commitment = (i: number) => p.commitments.subarray(i * BYTES_PER_COMMITMENT, (i + 1) * BYTES_PER_COMMITMENT);
  const proof = (i: number) => p.proofs.subarray(i * BYTES_PER_PROOF, (i + 1) * BYTES_PER_PROOF);
  const withProof: number[] = [];
  for (let i = 0; i < p.count; i++) {
    if (p.hasProof[i] === 1) {
      if (!equalBytes(kzgToVersionedHash(commitment(i)), hash(i))) status[i] = BlobStatus.hashMismatch;
      else withProof.push(i);
      continue;
    }
    try {
      const computed = kzg.blobToKzgCommitment(blob(i));
      if (!equalBytes(kzgToVersionedHash(computed), hash(i))) status[i] = BlobStatus.hashMismatch;
    } catch {
      status[i] = BlobStatus.malformed;
    }
  }
  if (withProof.length === 0) return status;
  let batchOk = false;
  try {
    batchOk = kzg.verifyBlobKzgProofBatch(withProof.map(blob), withProof.map(commitment), withProof.map(proof));
  } catch {
    batchOk = false;
  }
  if (batchOk) return status;
  // The batch failed as a whole: find which blobs are at fault.
  for (const i of withProof) {
    try {
      if (!kzg.verifyBlobKzgProof(blob(i), commitment(i), proof(i))) status[i] = BlobStatus.proofInvalid;
    } catch {
      status[i] = BlobStatus.malformed;
    }
  }
  return status;
}

function checkShape(p: PackedBlobs): void {
  const n = p?.count;
  const sized = (v: unknown, len: number) => v instanceof Uint8Array && v.length === len;
  if (
    !Number.isInteger(n) ||
    n < 0 ||
    !sized(p.blobs, n * BYTES_PER_BLOB) ||
    !sized(p.versionedHashes, n * 32) ||
    !sized(p.hasProof, n) ||
    !sized(p.commitments, n * BYTES_PER_COMMITMENT) ||
    !sized(p.proofs, n * BYTES_PER_PROOF)
  ) {
    throw new TernError('INVALID_INPUT', 'packed blobs: buffer sizes do not match the blob count');
  }
}
