// The one loader of the c-kzg binding (the blob verifier, the batcher, the pool's sidecar checks and the EVM all use
// it), and the KZG adapter @ethereumjs/common's customCrypto.kzg expects (hex-string in, hex-string out), over the native
// c-kzg binding. The EVM needs only verifyProof (point-evaluation precompile, EIP-4844); the blob functions are
// there for completeness (blob transaction wrappers). The mainnet trusted setup bundled with c-kzg is loaded once.
import { createRequire } from 'node:module';
import type { KZG } from '@ethereumjs/util';
import { fromHex, toHexKey } from '../../primitives/bytes.js';
import { TernError } from '../../primitives/errors.js';

type CKzg = typeof import('c-kzg');

let ckzg: CKzg | undefined;

/** The c-kzg binding without its trusted setup (a start-up check that it loads); throws when it cannot be loaded. */
export function requireKzgBinding(): CKzg {
  return createRequire(import.meta.url)('c-kzg') as CKzg;
}

/** The c-kzg binding with the mainnet trusted setup loaded (the blob verifier's workers use it too). */
export function load(): CKzg {
  if (ckzg !== undefined) return ckzg;
  let mod: CKzg;
  try {
    mod = requireKzgBinding();
  } catch (err) {
    throw new TernError('KZG_UNAVAILABLE', `c-kzg could not be loaded: ${(err as Error).message}`, { cause: err });
  }
  try {
    mod.loadTrustedSetup(0);
  } catch (err) {
    // Loaded by another user of the binding in this process already.
    if (!/already loaded/i.test((err as Error).message)) throw err;
  }
  ckzg = mod;
  return mod;
}

const b = fromHex;
const h = toHexKey;

/**
 * The c-kzg-backed KZG implementation for `createCommon…({ customCrypto: { kzg } })`. Lazy: c-kzg and its trusted
 * setup (~1-2 s of start-up, tens of MB) are loaded on the first call, i.e. when a block first needs the
 * point-evaluation precompile or a blob is checked, not when an executor is created.
 */
export function createKzg(): KZG {
  let loaded: CKzg | undefined;
  const lazy = {} as CKzg;
  for (const name of [
    'blobToKzgCommitment',
    'computeBlobKzgProof',
    'verifyKzgProof',
    'verifyBlobKzgProofBatch',
    'computeCells',
    'computeCellsAndKzgProofs',
    'recoverCellsAndKzgProofs',
    'verifyCellKzgProofBatch',
  ] as const) {
    (lazy as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      loaded ??= load();
      return (loaded[name] as (...a: unknown[]) => unknown)(...args);
    };
  }
  const k = lazy;
  return {
    blobToKzgCommitment: (blob) => h(k.blobToKzgCommitment(b(blob))),
    computeBlobProof: (blob, commitment) => h(k.computeBlobKzgProof(b(blob), b(commitment))),
    verifyProof: (commitment, z, y, proof) => k.verifyKzgProof(b(commitment), b(z), b(y), b(proof)),
    verifyBlobProofBatch: (blobs, commitments, proofs) =>
      k.verifyBlobKzgProofBatch(blobs.map(b), commitments.map(b), proofs.map(b)),
    computeCells: (blob) => k.computeCells(b(blob)).map(h),
    computeCellsAndProofs: (blob) => {
      const [cells, proofs] = k.computeCellsAndKzgProofs(b(blob));
      return [cells.map(h), proofs.map(h)];
    },
    recoverCellsAndProofs: (indices, cells) => {
      const [c, p] = k.recoverCellsAndKzgProofs(indices, cells.map(b));
      return [c.map(h), p.map(h)];
    },
    verifyCellKzgProofBatch: (commitments, indices, cells, proofs) =>
      k.verifyCellKzgProofBatch(commitments.map(b), indices, cells.map(b), proofs.map(b)),
  };
}
