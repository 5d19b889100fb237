// The ethereumjs set-up shared by the chain generator and the baseline runner, configured as fast as the library
// allows without changing its code: native libsecp256k1 (the `secp256k1` package) for sender recovery and the
// ecrecover precompile, the native `keccak` package for hashing (1.5–4× @noble/hashes, see bench/RESULTS.md),
// node:crypto for sha256, c-kzg for the point-evaluation precompile, and the state manager's account, storage and
// code caches (LRU, sized so that a whole block's writes fit between two flushes).
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { type Common, type CustomCrypto, createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { Caches, CacheType, MerkleStateManager } from '@ethereumjs/statemanager';
import { createVM, type VM } from '@ethereumjs/vm';
import { createKzg } from '../../src/main/protocol/crypto/kzg.js';

interface Secp256k1Native {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
}
type KeccakFactory = (algorithm: 'keccak256') => {
  update(data: Buffer): { digest(): Buffer };
};

const require = createRequire(import.meta.url);
const secp256k1 = require('secp256k1') as Secp256k1Native;
const createKeccakHash = require('keccak') as KeccakFactory;

function pad32(b: Uint8Array): Uint8Array {
  if (b.length === 32) return b;
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return out;
}

/** keccak-256 through the native `keccak` package; the digest is copied into a plain Uint8Array. */
export function nativeKeccak256(msg: Uint8Array): Uint8Array {
  return new Uint8Array(
    createKeccakHash('keccak256')
      .update(Buffer.from(msg.buffer, msg.byteOffset, msg.byteLength))
      .digest(),
  );
}

/** @ethereumjs/util's `ecrecover` contract (64-byte public key, no prefix) over native libsecp256k1. */
function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  let recovery = v;
  if (v !== 0n && v !== 1n) recovery = chainId === undefined ? v - 27n : v - (chainId * 2n + 35n);
  if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value');
  const sig = new Uint8Array(64);
  sig.set(pad32(r), 0);
  sig.set(pad32(s), 32);
  return secp256k1.ecdsaRecover(sig, Number(recovery), msgHash, false).subarray(1);
}

export interface TuningOptions {
  /** Use the native `keccak` package instead of @noble/hashes (default true). */
  nativeKeccak?: boolean;
  /** Use native libsecp256k1 for ecrecover (default true); false is ethereumjs as shipped (@noble/curves). */
  nativeSecp256k1?: boolean;
  /** State manager caches (default true). */
  caches?: boolean;
  /** The caches' implementation (default LRU; ORDERED_MAP measured slightly slower here). */
  cacheType?: CacheType;
}

export function tunedCrypto(opts: TuningOptions = {}): CustomCrypto {
  return {
    ...(opts.nativeSecp256k1 === false
      ? {}
      : {
          ecrecover,
          ecdsaRecover: (sig: Uint8Array, recId: number, hash: Uint8Array) =>
            secp256k1.ecdsaRecover(sig, recId, hash, false),
        }),
    ...(opts.nativeKeccak === false ? {} : { keccak256: nativeKeccak256 }),
    sha256: (msg: Uint8Array) => new Uint8Array(createHash('sha256').update(msg).digest()),
    kzg: createKzg(),
  };
}

/** A Common for the benchmark chain: Mainnet's rules fixed at Cancun, the given chain id, the tuned crypto. */
export function benchCommon(chainId: bigint, opts: TuningOptions = {}): Common {
  return createCustomCommon({ chainId: Number(chainId) }, Mainnet, {
    hardfork: Hardfork.Cancun,
    customCrypto: tunedCrypto(opts),
  });
}

/** Cache sizes: the chain touches ~10^4 accounts and slots, so nothing is evicted. */
const CACHE_SIZE = 200_000;

export function tunedStateManager(common: Common, opts: TuningOptions = {}): MerkleStateManager {
  return new MerkleStateManager({
    common,
    ...(opts.caches === false
      ? {}
      : {
          caches: new Caches({
            account: { type: opts.cacheType ?? CacheType.LRU, size: CACHE_SIZE },
            storage: { type: opts.cacheType ?? CacheType.LRU, size: CACHE_SIZE },
            code: { type: opts.cacheType ?? CacheType.LRU, size: 1000 },
          }),
        }),
  });
}

export async function tunedVM(common: Common, opts: TuningOptions = {}): Promise<VM> {
  return createVM({ common, stateManager: tunedStateManager(common, opts) });
}
