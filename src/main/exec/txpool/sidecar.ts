// Blob transactions in their network form (EIP-4844 PooledTransactions): 0x03 || rlp([tx, blobs, commitments,
// proofs]), or from Osaka (EIP-7594) 0x03 || rlp([tx, 1, blobs, commitments, cell_proofs]). The pool keeps the
// consensus transaction (0x03 || rlp(tx)) for blocks and the sidecar beside it for getPayload and the blob store;
// checks follow geth's validateBlobSidecar: counts, versioned hashes, then the KZG proofs with c-kzg.
import { createHash } from 'node:crypto';
import { TernError } from '../../common/errors.js';
import { toHex as hex } from '../../primitives/bytes.js';
import { asBytes, asList, bytesToBigint, type RlpDecoded, rlpDecode, rlpEncode } from '../../primitives/rlp.js';
import { load as kzg } from '../../protocol/crypto/kzg.js';
import { reject } from './errors.js';

export const BLOB_SIZE = 131_072;
export const CELLS_PER_EXT_BLOB = 128;

export interface BlobSidecar {
  /** 0: one blob proof per blob (EIP-4844); 1: cell proofs (EIP-7594). */
  readonly version: number;
  readonly blobs: readonly Uint8Array[];
  readonly commitments: readonly Uint8Array[];
  readonly proofs: readonly Uint8Array[];
}

export interface SplitBlobTx {
  /** The consensus encoding: 0x03 || rlp(tx). */
  readonly consensus: Uint8Array;
  /** Undefined when the input was already the consensus form. */
  readonly sidecar: BlobSidecar | undefined;
}

/** Separates a type-3 transaction from its sidecar; the consensus form passes through with no sidecar. */
export function splitBlobTx(raw: Uint8Array): SplitBlobTx {
  const outer = asList(rlpDecode(raw.subarray(1)), 'blob transaction');
  // A bare transaction has 14 fields; a wrapper has 4 or 5, its first being the transaction list.
  if (outer.length === 14 || !Array.isArray(outer[0])) return { consensus: raw, sidecar: undefined };
  const body = outer[0] as RlpDecoded[];
  const encoded = rlpEncode(body as Parameters<typeof rlpEncode>[0]);
  const consensus = new Uint8Array(encoded.length + 1);
  consensus[0] = 3;
  consensus.set(encoded, 1);
  let version = 0;
  let rest = outer.slice(1);
  if (outer.length === 5) {
    version = Number(bytesToBigint(asBytes(outer[1], 'sidecar version'), 'sidecar version'));
    if (version !== 1) throw new TernError('TX_DECODE', `unsupported blob sidecar version ${version}`);
    rest = outer.slice(2);
  } else if (outer.length !== 4) {
    throw new TernError('TX_DECODE', `blob transaction wrapper has ${outer.length} fields, want 4 or 5`);
  }
  const items = (i: number, what: string) => asList(rest[i], what).map((x) => asBytes(x, what));
  return {
    consensus,
    sidecar: {
      version,
      blobs: items(0, 'blobs'),
      commitments: items(1, 'commitments'),
      proofs: items(2, 'proofs'),
    },
  };
}

/** Re-encodes the network form from a consensus transaction and its sidecar. */
export function joinBlobTx(consensus: Uint8Array, sidecar: BlobSidecar): Uint8Array {
  const body = rlpDecode(consensus.subarray(1));
  const fields: unknown[] = [body];
  if (sidecar.version !== 0) fields.push(sidecar.version);
  fields.push(sidecar.blobs, sidecar.commitments, sidecar.proofs);
  const encoded = rlpEncode(fields as Parameters<typeof rlpEncode>[0]);
  const out = new Uint8Array(encoded.length + 1);
  out[0] = 3;
  out.set(encoded, 1);
  return out;
}

/** EIP-4844 kzg_to_versioned_hash: 0x01 || sha256(commitment)[1:]. */
export function versionedHash(commitment: Uint8Array): Uint8Array {
  const h = createHash('sha256').update(commitment).digest();
  h[0] = 0x01;
  return new Uint8Array(h);
}

/** geth's validateBlobSidecar: counts, hashes, then the proofs. Throws TxRejected with geth's wording. */
export function validateSidecar(hashes: readonly string[], s: BlobSidecar): void {
  checkSidecarShape(hashes, s);
  let ok: boolean;
  try {
    ok = verifySidecarProofs(s);
  } catch (err) {
    reject(`invalid blob proof: ${(err as Error).message}`);
  }
  proofVerdict(ok);
}

/** The answer to a sidecar whose proofs did not verify (geth's wording). */
export function proofVerdict(ok: boolean): void {
  if (!ok) reject('invalid blob proof: kzg verification failed');
}

/** validateSidecar without the proofs: counts, sizes, and the commitments against the transaction's hashes. */
export function checkSidecarShape(hashes: readonly string[], s: BlobSidecar): void {
  if (s.blobs.length !== hashes.length) {
    reject(`invalid number of ${s.blobs.length} blobs compared to ${hashes.length} blob hashes`);
  }
  if (s.commitments.length !== hashes.length) {
    reject(`invalid number of ${s.commitments.length} blob commitments compared to ${hashes.length} blob hashes`);
  }
  const wantProofs = s.version === 0 ? hashes.length : hashes.length * CELLS_PER_EXT_BLOB;
  if (s.proofs.length !== wantProofs) {
    reject(`invalid number of ${s.proofs.length} blob proofs expected ${wantProofs}`);
  }
  for (let i = 0; i < hashes.length; i++) {
    const blob = s.blobs[i] as Uint8Array;
    const commitment = s.commitments[i] as Uint8Array;
    if (blob.length !== BLOB_SIZE) reject(`invalid blob ${i}: blob is ${blob.length} bytes, want ${BLOB_SIZE}`);
    if (commitment.length !== 48) reject(`invalid blob ${i}: commitment is ${commitment.length} bytes, want 48`);
    const computed = hex(versionedHash(commitment));
    if (computed !== hashes[i]) reject(`blob ${i}: computed hash ${computed} mismatches transaction one ${hashes[i]}`);
  }
  for (const p of s.proofs) if (p.length !== 48) reject(`invalid blob proof: ${p.length} bytes, want 48`);
}

/** The KZG check of a well-shaped sidecar: blob proofs (version 0) or cell proofs (version 1). Throws on bad input. */
export function verifySidecarProofs(s: BlobSidecar): boolean {
  if (s.version === 0) return kzg().verifyBlobKzgProofBatch([...s.blobs], [...s.commitments], [...s.proofs]);
  const k = kzg();
  const cells: Uint8Array[] = [];
  const commitments: Uint8Array[] = [];
  const indices: number[] = [];
  s.blobs.forEach((blob, i) => {
    k.computeCells(blob).forEach((cell, j) => {
      cells.push(cell);
      indices.push(j);
      commitments.push(s.commitments[i] as Uint8Array);
    });
  });
  return k.verifyCellKzgProofBatch(commitments, indices, cells, [...s.proofs]);
}
